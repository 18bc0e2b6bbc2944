"""Orders files for the seven powers (spring 1901 and fall 1901), as players would write them."""

from benchmarks.openings import SPRING_1901

SPRING = SPRING_1901  # the opening the benchmarks send too


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
