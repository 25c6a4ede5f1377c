"""The README is the front door and docs/ the user's guide: every relative link between them (and to the code,
the assets and the benchmarks) names a file that exists, and every `#anchor` a heading of that file."""

import re

import pytest

from training.project import PROJECT

PAGES = [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchor(heading: str) -> str:
    """GitHub's (and the Hub's) anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)  # a `# comment` in a code block is no heading
    return {anchor(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.MULTILINE)}


def relative_links():
    for page in PAGES:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if not re.match(r"[a-z]+:", target):  # http:, https:, mailto: are not files of ours
                yield pytest.param(page, target, id=f"{page.name}->{target}")


@pytest.mark.parametrize("page,target", list(relative_links()))
def test_every_relative_link_names_a_file_and_heading_that_exist(page, target):
    path, _, fragment = target.partition("#")
    resolved = (page.parent / path).resolve() if path else page
    assert resolved.exists(), f"{page.name} links to {target}, which does not exist"
    assert PROJECT in resolved.parents or resolved == PROJECT, f"{page.name} links outside the repository: {target}"
    if fragment:
        assert fragment in anchors(resolved), f"{page.name} links to #{fragment}, not a heading of {path or page.name}"


def test_the_readme_is_a_front_door_and_links_every_guide_page():
    text = (PROJECT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    for page in ("explore", "api", "classroom", "training", "data", "hosting"):
        assert f"(docs/{page}.md)" in text
