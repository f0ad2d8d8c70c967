from django.core.management.base import BaseCommand

from annotation.management.commands._args import (
    bad_input,
    project_named,
    user_named,
    version_labelled,
)
from annotation.selectors.refresh import open_refresh, refresh_plan_read, refresh_progress
from annotation.services.refresh import golden_set_refresh_freeze, golden_set_refresh_open


def _counts(c: dict) -> str:
    return (
        f"untouched carried {c.get('untouched', 0)}, touched {c.get('touched', 0)}, "
        f"judgments asked {c.get('asked', 0)} ({c.get('asked_changed', 0)} changed, "
        f"{c.get('asked_replaces', 0)} replacing retired chunks, {c.get('pool', 0)} pool hits); "
        f"grades carried {c.get('carried_text', 0) + c.get('carried_span', 0)}"
    )


class Command(BaseCommand):
    help = (
        "Refresh a frozen version on the current corpus: open the refresh (touched queries go "
        "back to their annotators with only what needs a grade), or with --freeze store the next "
        "version once they are approved. --dry-run prints the counts and stores nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("project", help="project name or id")
        parser.add_argument("label", help="the frozen version to refresh")
        parser.add_argument("--freeze", action="store_true", help="freeze the open refresh")
        parser.add_argument("--dry-run", action="store_true", help="only count, store nothing")
        parser.add_argument("--new-label", help="label of the next version (default: next vN)")
        parser.add_argument("--note", default="")
        parser.add_argument("--by", help="username recorded as the lead")

    def handle(self, *args, **o):
        project = project_named(o["project"])
        version = version_labelled(project, o["label"])
        if o["dry_run"]:
            plan = refresh_plan_read(version=version).plan
            if plan.identical:
                self.stdout.write(f"identical to {version.label}: the corpus holds every grade")
            else:
                self.stdout.write(
                    f"refresh of {version.label} would ask: " + _counts(plan.counts())
                )
            return
        try:
            if o["freeze"]:
                refresh = open_refresh(version=version)
                if refresh is None:
                    raise ValueError(f"no open refresh of {version.label}: open one first")
                done = golden_set_refresh_freeze(
                    refresh=refresh, by=user_named(o["by"]), label=o["new_label"], note=o["note"]
                )
                if done.version is None:
                    self.stdout.write(f"identical to {done.identical_to}: nothing stored")
                else:
                    v = done.version
                    self.stdout.write(
                        f"froze {v.label} (refresh of {version.label}): {v.query_count} queries, "
                        f"{v.judgment_count} judgments, {v.content_hash}"
                    )
                return
            existing = open_refresh(version=version)
            if existing is not None:
                progress = refresh_progress(existing)
                self.stdout.write(
                    f"a refresh of {version.label} is open: {_counts(existing.counts)}; "
                    f"{progress['approved']} of {progress['rejudged']} re-judged queries approved"
                )
                return
            opened = golden_set_refresh_open(version=version, by=user_named(o["by"]))
        except ValueError as error:
            raise bad_input(str(error)) from None
        if opened.refresh is None:
            self.stdout.write(f"identical to {opened.identical_to}: nothing to refresh")
        else:
            self.stdout.write(f"opened a refresh of {version.label}: " + _counts(opened.counts))
