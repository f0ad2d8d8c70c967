import json

from django.core.management.base import BaseCommand, CommandError

from annotation.management.commands._args import project_named
from annotation.models import ImportStatus, QueryLog
from annotation.services.sampling import BY_FIELDS, SamplingError, sample_create, sample_draw
from goldsmith.intake.sampling import ALLOCATIONS, STRATEGIES


class Command(BaseCommand):
    help = "Sample real queries from an imported log into the project, reproducibly."

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="project name or id")
        parser.add_argument("--n", type=int, required=True, help="how many queries")
        parser.add_argument("--strategy", required=True, choices=STRATEGIES)
        parser.add_argument(
            "--by", default="", choices=["", *BY_FIELDS], help="field of the stratified strategy"
        )
        parser.add_argument("--allocation", default="", choices=["", *ALLOCATIONS])
        parser.add_argument("--seed", type=int, required=True)
        parser.add_argument("--log", type=int, help="log id (default: the latest imported log)")
        parser.add_argument("--dry-run", action="store_true", help="show the sample, store nothing")
        parser.add_argument("--format", default="table", choices=["table", "json"])

    def handle(self, *args, **o):
        project = project_named(o["project"])
        logs = QueryLog.objects.filter(project=project, status=ImportStatus.DONE)
        log = logs.filter(pk=o["log"]).first() if o["log"] else logs.order_by("-id").first()
        if log is None:
            which = f"#{o['log']} " if o["log"] else ""
            raise CommandError(f"no imported query log {which}in {project.name!r}", returncode=2)
        params = dict(
            project=project,
            log=log,
            n=o["n"],
            strategy=o["strategy"],
            seed=o["seed"],
            by=o["by"],
            allocation=o["allocation"],
        )
        try:
            outcome = sample_draw(**params) if o["dry_run"] else sample_create(**params)
        except (SamplingError, ValueError) as error:
            raise CommandError(str(error), returncode=2) from None
        if o["format"] == "json":
            payload = {
                "dry_run": o["dry_run"],
                "sample_id": outcome.sample.pk if outcome.sample else None,
                "provenance": outcome.provenance(),
                "pool_size": outcome.pool_size,
                "excluded": outcome.excluded,
                "queries": [
                    {
                        "text": r.text,
                        "category": r.category,
                        "count": r.count,
                        "stratum": r.stratum,
                        "weight": round(r.weight, 6),
                    }
                    for r in outcome.rows
                ],
            }
            self.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False))
            return
        self.stdout.write(
            f"{'Would sample' if o['dry_run'] else 'Sampled'} {len(outcome.rows)} of "
            f"{outcome.pool_size} queries from log #{log.pk} ({log.filename}, "
            f"sha256 {log.sha256[:12]}…), strategy {outcome.strategy}"
            f"{' by ' + outcome.by if outcome.by else ''}, allocation {outcome.allocation}, "
            f"seed {outcome.seed}"
        )
        self.stdout.write(f"{'stratum':<32} {'size':>7} {'share':>7} {'n':>5} {'weight':>8}")
        for s in outcome.strata:
            self.stdout.write(
                f"{str(s['name'])[:32]:<32} {s['size']:>7} {s['share']:>7.1%} "
                f"{s['allocated']:>5} {s['weight']:>8.3f}"
            )
        self.stdout.write("")
        for r in outcome.rows:
            self.stdout.write(f"{r.stratum[:20]:<20} {r.weight:>7.3f}  {r.text}")
