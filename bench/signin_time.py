"""Time a sign-in: the login page's POST through the whole middleware stack.

    DATABASE_URL=... python bench/signin_time.py [--runs 20]

Creates (or resets) the user `bench-signin` with the first hasher of PASSWORD_HASHERS, signs in
`--runs` times with Django's test client and prints the median, minimum and maximum wall time
of one POST /login/. Password hashing dominates: Django's PBKDF2 default (1,000,000 rounds of
SHA-256 in 5.2) or our Argon2id (19 MiB, 2 passes, 1 lane: config/hashers.py) once per sign-in.
For a figure before Argon2, run it on an older checkout.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from benchlib import django_setup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()

    django_setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    password = "bench-signin-password-0123"
    user, _ = get_user_model().objects.get_or_create(username="bench-signin")
    user.set_password(password)
    user.is_active = True
    user.save()
    hasher = user.password.split("$", 1)[0]
    times = []
    for _ in range(args.runs):
        client = Client()
        started = time.perf_counter()
        response = client.post("/login/", {"username": user.username, "password": password})
        times.append(time.perf_counter() - started)
        assert response.status_code == 302, response.status_code
    load = os.getloadavg()[0]
    print(
        f"sign-in ({hasher}, first hasher {settings.PASSWORD_HASHERS[0].rsplit('.', 1)[-1]}), "
        f"{args.runs} runs, load {load:.1f} on {os.cpu_count()} cores: "
        f"median {statistics.median(times) * 1000:.0f} ms, "
        f"min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
