"""The parts a Lark Mail world is built from: the cast, the mailbox, ordinary mail and the traps.

`sites/mail/generator.py` puts them together (and documents the setup params and bindings).
"""
