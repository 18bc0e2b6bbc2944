"""Mail authentication: DKIM keys and signatures on what the judge sends, the DNS records
that publish them (see also README, "Mail authentication")."""
