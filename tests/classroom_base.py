"""What the classroom tests share: the sentence they explain, its seeds, and the tags a rendered view holds."""

from __future__ import annotations

from html.parser import HTMLParser

SENTENCE = "The chef cooked a delicious meal for the guests at the restaurant and they loved it."
SEEDS = (0, 1, 7)


class Tags(HTMLParser):
    """Collects the name of every start tag fed to it."""

    def __init__(self):
        super().__init__()
        self.tags = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
