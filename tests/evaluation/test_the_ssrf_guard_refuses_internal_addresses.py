"""Retriever URLs are checked against server-side request forgery: metadata and link-local
addresses always refused, loopback and private networks only when allowed, in every spelling
(decimal, octal, hex, short, IPv6, IPv4-mapped), after DNS resolution, and after redirects."""

from __future__ import annotations

import pytest

from goldsmith.retrievers.http import HttpRetrieverClient, HttpRetrieverConfig
from goldsmith.retrievers.ssrf import Policy, UnsafeURL, check_url, parse_ip

STRICT = Policy(allow_private=False)
LOOSE = Policy(allow_private=True)


def no_dns(host: str, port: int) -> list[str]:
    raise AssertionError(f"{host} should not need DNS")


ALWAYS_REFUSED = [
    "http://169.254.169.254/latest/meta-data/",
    "http://2852039166/",  # 169.254.169.254 in decimal
    "http://0xA9FEA9FE/",  # ... in hex
    "http://0251.0376.0251.0376/",  # ... in octal
    "http://169.254.43518/",  # ... with a 16-bit last part
    "http://[::ffff:169.254.169.254]/",  # IPv4-mapped IPv6
    "http://[::ffff:a9fe:a9fe]/",  # ... in hex groups
    "http://[fd00:ec2::254]/",  # AWS IMDS over IPv6
    "http://100.100.100.200/",  # Alibaba metadata
    "http://[fe80::1]/",  # IPv6 link-local
    "http://169.254.1.1/",  # IPv4 link-local
    "http://0.0.0.0/",
    "http://[::]/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 of the metadata address
    "http://[2002:a9fe:a9fe::1]/",  # 6to4 of the metadata address
    "file:///etc/passwd",
    "gopher://127.0.0.1/",
    "http://user:pass@example.com/",
]
PRIVATE = [
    "http://127.0.0.1:8080/search",
    "http://localhost.test.invalid/",  # resolves to loopback (see resolver below)
    "http://2130706433/",  # 127.0.0.1 decimal
    "http://0x7f.1/",  # hex, short form
    "http://0177.0.0.1/",  # octal
    "http://127.1/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://10.0.0.5/",
    "http://172.16.3.4/",
    "http://192.168.1.1/",
    "http://100.64.0.1/",  # carrier-grade NAT
    "http://[fc00::1]/",
    "http://[fd12:3456::1]/",
]


def resolver(host: str, port: int) -> list[str]:
    table = {
        "localhost.test.invalid": ["127.0.0.1"],
        "public.example": ["93.184.216.34"],
        "rebind.example": ["93.184.216.34", "10.0.0.1"],  # one bad address is enough
        "metadata.example": ["169.254.169.254"],
        "v6.example": ["2606:2800:220:1:248:1893:25c8:1946"],
    }
    if host not in table:
        raise OSError("unknown host")
    return table[host]


@pytest.mark.parametrize("url", ALWAYS_REFUSED)
def test_it_always_refuses(url):
    for policy in (STRICT, LOOSE):
        with pytest.raises(UnsafeURL):
            check_url(url, policy, resolver)


@pytest.mark.parametrize("url", PRIVATE)
def test_it_refuses_private_addresses_unless_allowed(url):
    with pytest.raises(UnsafeURL):
        check_url(url, STRICT, resolver)
    assert check_url(url, LOOSE, resolver).address


def test_it_checks_every_resolved_address_and_pins_the_first():
    target = check_url("https://public.example/search?x=1", STRICT, resolver)
    assert str(target.address) == "93.184.216.34"
    assert target.pinned_url == "https://93.184.216.34:443/search?x=1"
    assert target.host_header == "public.example"
    with pytest.raises(UnsafeURL, match="private"):
        check_url("http://rebind.example/", STRICT, resolver)
    with pytest.raises(UnsafeURL, match="metadata"):
        check_url("http://metadata.example/", LOOSE, resolver)
    assert check_url("http://v6.example/", STRICT, resolver).pinned_url.startswith("http://[2606:")


def test_it_parses_every_spelling_of_an_address():
    assert str(parse_ip("2130706433")) == "127.0.0.1"
    assert str(parse_ip("0x7f000001")) == "127.0.0.1"
    assert str(parse_ip("127.1")) == "127.0.0.1"
    assert str(parse_ip("10.1.258")) == "10.1.1.2"
    assert parse_ip("example.com") is None
    assert parse_ip("1.2.3.4.5") is None
    assert parse_ip("256.1.1.1") is None


@pytest.mark.parametrize(
    "to",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://0xa9fea9fe/",
        "http://[::ffff:169.254.169.254]/",
        "http://[fe80::1]/",
        "file:///etc/passwd",
    ],
)
def test_a_redirect_to_a_refused_address_is_not_followed(private_urls, stub_factory, to):
    stub = stub_factory({"q1": ["a"]})
    config = HttpRetrieverConfig(**stub.config(url=f"{stub.url}/redirect?to={to}"))
    with HttpRetrieverClient(config, policy=LOOSE) as client:
        outcome = client.search("q1", "question", 5)
    assert outcome.hits == ()
    assert "refused" in outcome.error or "only http" in outcome.error
    assert outcome.attempts == 1  # not worth retrying
    assert stub.calls == 0  # the redirect endpoint answered; nothing else was called


def test_a_redirect_to_an_allowed_address_is_followed(private_urls, stub_factory):
    stub = stub_factory({"q1": ["a", "b"]})
    config = HttpRetrieverConfig(**stub.config(url=f"{stub.url}/redirect?to={stub.url}/search"))
    with HttpRetrieverClient(config, policy=LOOSE) as client:
        outcome = client.search("q1", "question", 5)
    assert [h.id for h in outcome.hits] == ["a", "b"], outcome.error


def test_a_lead_cannot_configure_a_metadata_url(personas, api_client_for):
    response = api_client_for(personas.alice).post(
        f"/api/v1/projects/{personas.project.pk}/retrievers/",
        {
            "name": "imds",
            "kind": "http",
            "config": {"url": "http://169.254.169.254/latest/{query}", "method": "GET"},
        },
        format="json",
    )
    assert response.status_code == 400
    (reason,) = response.json()["config"]["url"]  # field → messages, as every endpoint refuses
    assert "metadata" in reason


def test_loopback_is_refused_by_default(personas, api_client_for, settings):
    settings.GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS = False
    response = api_client_for(personas.alice).post(
        f"/api/v1/projects/{personas.project.pk}/retrievers/",
        {"name": "local", "kind": "http", "config": {"url": "http://127.0.0.1:9/search"}},
        format="json",
    )
    assert response.status_code == 400
    (reason,) = response.json()["config"]["url"]
    assert "loopback" in reason
