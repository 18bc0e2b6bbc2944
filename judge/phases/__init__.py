"""Processing a turn: readiness, orders, adjudication, the record and the results."""
