"""One module per trap: each plants its messages in the mailbox and, once the world is finished,
gives the bindings the task templates read (`{invoice.id}`, ...)."""
