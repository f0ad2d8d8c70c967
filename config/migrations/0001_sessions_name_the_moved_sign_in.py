"""A session stores the dotted path of the backend that signed its user in, and Django signs
out a session whose backend is no longer in AUTHENTICATION_BACKENDS: the sign-in backend moved
from annotation/authentication.py to config/authentication.py, so the sessions open at the
move are pointed at its new path and nobody is signed out by it."""

from django.db import migrations

BEFORE = "annotation.authentication.ThrottledModelBackend"
AFTER = "config.authentication.ThrottledModelBackend"


def rename_backend(old: str, new: str):
    def rename(apps, schema_editor):
        from django.contrib.sessions.backends.db import SessionStore

        store = SessionStore()
        Session = apps.get_model("sessions", "Session")
        for session in Session.objects.filter(session_data__isnull=False).iterator():
            data = store.decode(session.session_data)
            if data.get("_auth_user_backend") == old:
                data["_auth_user_backend"] = new
                session.session_data = store.encode(data)
                session.save(update_fields=["session_data"])

    return rename


class Migration(migrations.Migration):
    dependencies = [("sessions", "0001_initial")]

    operations = [
        migrations.RunPython(rename_backend(BEFORE, AFTER), rename_backend(AFTER, BEFORE)),
    ]
