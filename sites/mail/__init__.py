"""Lark Mail (`mail.test`), the hermetic webmail: world generator, pages, JSON API, faults."""
