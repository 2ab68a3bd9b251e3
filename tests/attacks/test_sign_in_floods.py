"""Sign-in floods from many addresses: one stolen or guessed token tried from hundreds of
addresses, guesses from every address of one IPv6 /64, and many students signing in many times.
Nobody is signed out, an instructor can still sign in, and the throttle answers 429 with how
long to wait (never a 500)."""

from __future__ import annotations

import ipaddress

from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from app.ratelimit import address_key
from tests.app.conftest import Api


def _from(target: Api, host: str) -> TestClient:
    """A client at `host` on the same running app (its state, limits and sessions)."""
    return TestClient(target.client.app, client=(host, 40000), follow_redirects=False)


def _sign_in(client: TestClient, token: str) -> int:
    return client.post("/sign-in", data={"token": token, "next": "/"}).status_code


def _signed_in(client: TestClient) -> bool:
    page = client.get("/")
    return page.status_code == 200 and 'name="token"' not in page.text


def test_one_token_from_hundreds_of_addresses_is_throttled_by_the_token(target: Api) -> None:
    prof = _from(target, "192.0.2.1")
    assert _sign_in(prof, target.tokens["prof"]) == 303
    codes = [_sign_in(_from(target, f"198.51.{n // 250}.{n % 250 + 1}"), target.tokens["bob"])
             for n in range(100)]
    assert set(codes) <= {303, 429}, set(codes)
    assert codes.count(303) <= 25, codes.count(303)  # the token's burst, not one per address
    assert _signed_in(prof)
    assert _sign_in(_from(target, "192.0.2.2"), target.tokens["root"]) == 303


def test_guesses_from_every_address_of_one_ipv6_network_share_a_throttle(target: Api) -> None:
    network = ipaddress.IPv6Network("2001:db8:7:7::/64")
    codes = [_sign_in(_from(target, str(network[n * 7919 + 1])), f"guess-{n}")
             for n in range(90)]
    assert set(codes) <= {401, 429}, set(codes)
    assert codes.count(429) >= 10, codes.count(429)  # past the burst of 60 (it refills)
    assert _sign_in(_from(target, "2001:db8:8::1"), target.tokens["prof"]) == 303


@given(st.ip_addresses(v=6))
def test_an_ipv6_address_is_throttled_by_its_network(address: ipaddress.IPv6Address) -> None:
    key = address_key(str(address))
    if address.ipv4_mapped is not None:
        assert key == str(address.ipv4_mapped)
    else:
        assert address in ipaddress.IPv6Network(key)
        assert ipaddress.IPv6Network(key).prefixlen == 64


@given(st.ip_addresses(v=4))
def test_an_ipv4_address_is_throttled_on_its_own(address: ipaddress.IPv4Address) -> None:
    assert address_key(str(address)) == str(address)
