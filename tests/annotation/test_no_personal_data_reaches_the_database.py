"""Scrubbing: thousands of generated e-mail addresses and phone numbers in varied formats go
through a real import, and none of them survives anywhere in the database (every column of
every table is searched); ordinary numbers in queries are left alone."""

import csv
import random
import re

from django.db import connection

from annotation.models import LogQuery
from annotation.services.querylogs import query_log_import
from goldsmith.intake.pii import scrub

FIRST = ["jane", "J.Doe", "bob_smith", "a.b-c", "mary+news", "x", "Zoë", "o'neil", "user123"]
DOMAINS = ["example.com", "mail.example.co.uk", "EXAMPLE.ORG", "uni-bonn.de", "a.io", "b.museum"]


def emails(rng: random.Random, n: int) -> list[str]:
    out = []
    for i in range(n):
        local = rng.choice(FIRST).replace("'", "") + (str(i) if rng.random() < 0.7 else "")
        domain = rng.choice(DOMAINS)
        style = rng.random()
        if style < 0.8:
            out.append(f"{local}@{domain}")
        elif style < 0.9:
            name, tld = domain.rsplit(".", 1)
            out.append(f"{local} [at] {name} [dot] {tld}")
        else:
            out.append(f"{local.upper()}@{domain.upper()}")
    return out


def digits(rng: random.Random, k: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(k))


def phones(rng: random.Random, n: int) -> list[str]:
    d = lambda k: digits(rng, k)  # noqa: E731
    nz = lambda: rng.choice("23456789")  # noqa: E731
    makers = [
        lambda: f"+44 20 {d(4)} {d(4)}",
        lambda: f"+33 6 {d(2)} {d(2)} {d(2)} {d(2)}",
        lambda: f"+49 30 {d(8)}",
        lambda: f"+1 {nz()}{d(2)} {nz()}{d(2)} {d(4)}",
        lambda: f"+1-{nz()}{d(2)}-{nz()}{d(2)}-{d(4)}",
        lambda: f"+1.{nz()}{d(2)}.{nz()}{d(2)}.{d(4)}",
        lambda: f"+49{d(11)}",
        lambda: f"0044 20 {d(4)} {d(4)}",
        lambda: f"+49 (0){d(2)} {d(7)}",
        lambda: f"({nz()}{d(2)}) {nz()}{d(2)}-{d(4)}",
        lambda: f"{nz()}{d(2)}-{nz()}{d(2)}-{d(4)}",
        lambda: f"{nz()}{d(2)}.{nz()}{d(2)}.{d(4)}",
        lambda: f"{nz()}{d(2)} {nz()}{d(2)} {d(4)}",
        lambda: f"1-{nz()}{d(2)}-{nz()}{d(2)}-{d(4)}",
        lambda: f"{nz()}{d(2)}-{d(4)}",
        lambda: f"020 {d(4)} {d(4)}",
        lambda: f"06 {d(2)} {d(2)} {d(2)} {d(2)}",
        lambda: f"06-{d(2)}-{d(2)}-{d(2)}-{d(2)}",
        lambda: f"06{d(8)}",
        lambda: f"030/{d(7)}",
        lambda: f"07{d(3)} {d(6)}",
        lambda: f"+31 6 {d(8)}",
        lambda: f"+7 495 {d(3)}-{d(2)}-{d(2)}",
    ]
    return [rng.choice(makers)() for _ in range(n)]


ORDINARY = [
    "what is new in python 3.11.2",
    "python 2.7.18 end of life",
    "datetime for 2024-01-15",
    "strftime for 15/01/2024",
    "why did 2023 leap year check fail",
    "sum 10,000 rows quickly",
    "read a 1.5 GB file",
    "sleep 500 ms",
    "http server on port 8080",
    "resize to 1920x1080",
    "why is 0.1 + 0.2 not 0.3",
    "format 3.14159 with 2 decimals",
    "HTTP 404 with urllib",
    "schedule at 10:30",
    "split 100000 items in batches of 500",
    "range(0, 100) step 5",
    "pep 8 line length 79",
    "utf-8 vs utf-16",
    "sha256 of a 4096 byte block",
    "int('0x1F', 16)",
]

CONTEXTS = [
    "contact {} about the json bug",
    "my address is {}, please help with asyncio",
    "why does smtplib reject ({})",
    "{}",
    "send to <{}> the logging output.",
    "call {} when the build fails",
]


def test_no_email_or_phone_survives_and_ordinary_numbers_stay(personas, tmp_path):
    rng = random.Random(4242)
    secrets = emails(rng, 1500) + phones(rng, 2500)
    rows = []
    for i, secret in enumerate(secrets):
        context = CONTEXTS[i % len(CONTEXTS)]
        # The user and session columns hold personal data too; they must only be hashed.
        rows.append({"query": context.format(secret), "user": secret, "session": f"s-{secret}"})
    rows += [{"query": text, "user": "", "session": ""} for text in ORDINARY]
    path = tmp_path / "log.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=["query", "user", "session"])
        writer.writeheader()
        writer.writerows(rows)

    log = query_log_import(project=personas.project, path=path, near_duplicate_threshold=1.0)
    assert log.status == "done", log.error
    assert log.scrubbed.get("EMAIL", 0) >= 1500
    assert log.scrubbed.get("PHONE", 0) + log.scrubbed.get("CARD", 0) >= 2500

    haystack = "\n".join(every_stored_value())
    survivors = [s for s in secrets if s in haystack or s.lower() in haystack]
    assert survivors == []
    assert "@" not in "".join(LogQuery.objects.values_list("text", flat=True))
    stored = set(LogQuery.objects.values_list("text", flat=True))
    assert set(ORDINARY) <= stored  # left exactly as typed
    # Not even a fragment is left: the contexts hold no digit, so no scrubbed query may.
    fragments = [t for t in stored - set(ORDINARY) if re.search(r"\d", t)]
    assert fragments == []


def every_stored_value():
    """Every value of every column of every table, as text."""
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            for row in cursor.fetchall():
                for value in row:
                    if value is not None:
                        yield str(value)


def test_ordinary_numbers_are_left_alone_one_by_one():
    for text in ORDINARY:
        assert scrub(text).text == text, text


def test_cards_ibans_ips_and_project_patterns_are_typed():
    result = scrub(
        "card 4111 1111 1111 1111, iban DE89 3704 0044 0532 0130 00, from 192.168.1.20 "
        "and 2001:db8::8a2e:370:7334, ticket TCK-123456",
        {"ticket": r"\bTCK-\d{6}\b"},
    )
    assert result.text == "card <CARD>, iban <IBAN>, from <IP> and <IP>, ticket <TICKET>"
    assert result.counts == {"CARD": 1, "IBAN": 1, "IP": 2, "TICKET": 1}
    # A number that fails the Luhn check is not a card (an order number, say).
    assert scrub("order 4111 1111 1111 1112").text == "order 4111 1111 1111 1112"
