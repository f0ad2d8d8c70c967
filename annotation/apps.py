from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from annotation.selectors.languages import remember_user_language

        # Each sign-in reads the user's interface language once (config/language.py).
        user_logged_in.connect(remember_user_language, dispatch_uid="goldsmith-user-language")
