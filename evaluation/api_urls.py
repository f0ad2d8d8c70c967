"""API routes of the evaluation app, under /api/v1/."""

from evaluation.api import urlpatterns as run_patterns
from evaluation.api_answer_judges import urlpatterns as answer_judge_patterns
from evaluation.api_judges import urlpatterns as judge_patterns

urlpatterns = run_patterns + judge_patterns + answer_judge_patterns
