"""Every sentence the Explore tab suggests does what the page says of it, with the bundled pair: the everyday
examples read as original in "Detect only" (nothing flagged) and give the generator words to forge at the
page's first settings; the last one, the first with one word swapped by hand, has exactly that word flagged."""

from __future__ import annotations

import pytest

from explainer.core import generators, models
from explainer.core.pipeline import Settings, explain
from explainer.ui.explore import DETECT_EXAMPLE, EXAMPLES, EXAMPLES_LABEL

pytestmark = pytest.mark.slow  # loads the bundled pair (both generators): several seconds on a busy CPU
FLAGGED = 0.5  # the line the verdict draws


@pytest.fixture(scope="module")
def bundled():
    return models.load(str(models.BUNDLED))


@pytest.fixture(autouse=True)
def shipped_stronger_generator(monkeypatch):
    """The page's stronger forger is the shipped one, whatever a served test app in this process points it at."""
    monkeypatch.setenv(generators.FOLDER_ENV, str(generators.STRONGER_FOLDER))


@pytest.mark.parametrize("sentence", EXAMPLES)
def test_an_everyday_example_reads_as_original_and_gets_forged(bundled, sentence):
    judged = explain(bundled, sentence, Settings(mode="detect"))
    assert max(w.p_replaced for w in judged.words) < FLAGGED, [(w.corrupted, w.p_replaced) for w in judged.words]
    forged = explain(bundled, sentence, Settings(mode="auto", seed=0))  # the page's first settings
    assert forged.masked and forged.score()["replaced"] >= 1  # something for the discriminator to catch
    # the stronger forger may draw the original back (labelled ORIGINAL): it still gets words to forge
    assert explain(bundled, sentence, Settings(mode="auto", seed=0, generator="stronger")).masked


def test_the_detect_only_example_has_its_one_wrong_word_flagged_and_nothing_else(bundled):
    assert "Detect only" in EXAMPLES_LABEL and "last" in EXAMPLES_LABEL
    swapped = [(a, b) for a, b in zip(EXAMPLES[0].split(), DETECT_EXAMPLE.split()) if a != b]
    assert swapped == [("boat", "banana")] and len(EXAMPLES[0].split()) == len(DETECT_EXAMPLE.split())
    judged = explain(bundled, DETECT_EXAMPLE, Settings(mode="detect"))
    flagged = [w.corrupted for w in judged.words if w.p_replaced > FLAGGED]
    assert flagged == ["banana"]
    top = max(judged.words, key=lambda w: w.p_replaced)
    assert top.corrupted == "banana" and round(top.p_replaced, 2) == 0.78
