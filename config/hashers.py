"""The password hasher: Argon2id with OWASP's recommended parameters."""

from __future__ import annotations

from django.contrib.auth.hashers import Argon2PasswordHasher


class Argon2idPasswordHasher(Argon2PasswordHasher):
    """Argon2id with 19 MiB, 2 passes, 1 lane (OWASP's Password Storage Cheat Sheet).

    Memory-hard, so a GPU gains little, and about 40 ms of one core per sign-in. Django's own
    defaults (100 MiB, 8 lanes) cost about 300 ms of CPU, PBKDF2 about 630 ms; on two busy cores
    that is 1.2 s and 2.4 s of waiting. Hashes made with other parameters (or PBKDF2) still
    check, and Django re-hashes them with these at the user's next sign-in.
    """

    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1
