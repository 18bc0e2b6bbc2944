"""Orders files for the seven powers (spring 1901 and fall 1901), as players would write them."""

SPRING = {
    "AUSTRIA": ["A VIE - GAL", "A BUD - SER", "F TRI - ALB"],
    "ENGLAND": ["F LON - NTH", "F EDI - NWG", "A LVP - YOR"],
    "FRANCE": ["F BRE - MAO", "A PAR - BUR", "A MAR - SPA"],
    "GERMANY": ["F KIE - DEN", "A BER - KIE", "A MUN - RUH"],
    "ITALY": ["F NAP - ION", "A ROM - APU", "A VEN H"],
    "RUSSIA": ["F STP/SC - BOT", "A MOS - UKR", "A WAR - GAL", "F SEV - BLA"],
    "TURKEY": ["F ANK - BLA", "A CON - BUL", "A SMY - CON"],
}


def orders_file(power: str, phase: str, lines: list[str], *, newline: str = "\n") -> bytes:
    """A file like the reference's: a title line, then one order per line."""
    text = [f"Here are the orders for {power.title()} in {phase}", "", *lines]
    return newline.join(text).encode("utf-8") + newline.encode()


# Fall 1901 after the spring above with England's and Italy's units holding.
FALL = {
    "AUSTRIA": ["A SER - GRE", "F ALB S A SER - GRE", "A VIE H"],
    "ENGLAND": ["F LON - NTH", "F EDI - NWG", "A LVP - YOR"],
    "FRANCE": ["F MAO - POR", "A SPA H", "A BUR - BEL"],
    "GERMANY": ["F DEN H", "A KIE - HOL", "A RUH H"],
    "ITALY": ["F NAP - TUN", "A ROM H", "A VEN H"],
    "RUSSIA": ["F BOT - SWE", "A UKR - RUM", "A WAR H", "F SEV H"],
    "TURKEY": ["A BUL H", "A CON H", "F ANK H"],
}
