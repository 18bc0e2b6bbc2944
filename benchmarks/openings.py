"""A standard Spring 1901 opening for every power, as benchmark traffic (canonical text)."""

SPRING_1901: dict[str, list[str]] = {
    "AUSTRIA": ["A VIE - GAL", "A BUD - SER", "F TRI - ALB"],
    "ENGLAND": ["F LON - NTH", "F EDI - NWG", "A LVP - YOR"],
    "FRANCE": ["F BRE - MAO", "A PAR - BUR", "A MAR - SPA"],
    "GERMANY": ["F KIE - DEN", "A BER - KIE", "A MUN - RUH"],
    "ITALY": ["F NAP - ION", "A ROM - APU", "A VEN H"],
    "RUSSIA": ["F STP/SC - BOT", "A MOS - UKR", "A WAR - GAL", "F SEV - BLA"],
    "TURKEY": ["F ANK - BLA", "A CON - BUL", "A SMY - CON"],
}
