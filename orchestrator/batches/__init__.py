"""Message Batches (`book run --message-batches`): the journal in files (journal.py), the
engine that submits a wave of steps as one batch and collects it (engine.py), the batch
price (pricing.py). Importing this package does not import `anthropic`."""
