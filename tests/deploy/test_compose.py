"""deploy/compose.yaml parses and hangs together (no Docker daemon needed): the judge
relays through the Postfix service, Postfix relays the judge's domain to the judge's SMTP
port and lets exactly the compose network relay, logs are capped, and the image upgrades
the schema before it serves."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
COMPOSE = yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def postfix_setting(name: str) -> str:
    for line in (DEPLOY / "postfix" / "main.cf").read_text().splitlines():
        key, _, value = line.partition("=")
        if key.strip() == name and not line.lstrip().startswith("#"):
            return value.strip()
    raise AssertionError(f"main.cf sets no {name}")


def test_the_judge_relays_through_the_postfix_service() -> None:
    services = COMPOSE["services"]
    judge = services["judge"]["environment"]
    assert judge["JUDGE_OUTBOUND_RELAY_HOST"] == "mta" and "mta" in services
    assert (DEPLOY / services["mta"]["build"] / "Dockerfile").exists()
    assert "25:25" in services["mta"]["ports"]
    domain = judge["JUDGE_JUDGE_DOMAIN"]
    assert judge["JUDGE_JUDGE_ADDRESS"].endswith("@" + domain)
    assert postfix_setting("relay_domains") == domain
    route = (DEPLOY / "postfix" / "transport").read_text().split()
    assert route == [domain, f"smtp:[judge]:{judge['JUDGE_SMTP_PORT']}"]


def test_postfix_lets_exactly_the_compose_network_relay() -> None:
    [subnet] = [ipaddress.ip_network(c["subnet"]) for c in COMPOSE["networks"]["mail"]["ipam"]["config"]]
    allowed = [ipaddress.ip_network(n.strip("[]").replace("]/", "/")) for n in postfix_setting("mynetworks").split()]
    assert subnet in allowed
    assert all(n.is_loopback or n == subnet for n in allowed)  # nobody else may relay
    for name in ("db", "judge", "mta"):
        assert COMPOSE["services"][name]["networks"] == ["mail"]


def test_machine_players_outside_the_host_reach_the_daide_ports() -> None:
    """In a container 127.0.0.1 is the container's own loopback: the edge listens on every
    address and the whole range is published under the same numbers (a bot is told them)."""
    judge = COMPOSE["services"]["judge"]
    assert judge["environment"]["JUDGE_DAIDE_HOST"] == "0.0.0.0"
    first, last = judge["environment"]["JUDGE_DAIDE_PORT_RANGE"].split("-")
    assert f"{first}-{last}:{first}-{last}" in judge["ports"]
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert "JUDGE_DAIDE_HOST=0.0.0.0" in dockerfile and f"EXPOSE 2525 {first}-{last}" in dockerfile


def test_logs_are_capped_and_the_schema_is_upgraded_before_serving() -> None:
    for service in COMPOSE["services"].values():
        assert service["logging"]["options"]["max-size"] == "10m"
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert 'CMD ["sh", "-c", "judge db upgrade && exec judge serve"]' in dockerfile
    assert "JUDGE_JUDGE_DATA_DIR=/var/lib/judge" in dockerfile
    assert COMPOSE["services"]["judge"]["volumes"] == ["judge-data:/var/lib/judge"]
