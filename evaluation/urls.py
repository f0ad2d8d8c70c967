"""Browser pages of the evaluation app."""

from evaluation.views import urlpatterns as run_patterns
from evaluation.views_answer_judges import urlpatterns as answer_judge_patterns
from evaluation.views_judges import urlpatterns as judge_patterns

urlpatterns = run_patterns + judge_patterns + answer_judge_patterns
