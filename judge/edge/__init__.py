"""The judge's edges: SMTP intake, IMAP polling, the outbox sender."""
