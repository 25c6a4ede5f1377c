"""The code the Classroom's "Use it in Hugging Face" panel shows: this app's bundled discriminator fine-tuned one
step with plain `transformers` (`HF_SNIPPET`; a test runs exactly this text), and the same code for the hub's
discriminator (`hub_snippet`). Text only: nothing runs here.
"""

from __future__ import annotations

BUNDLED_DISCRIMINATOR = "assets/model/discriminator"
HUB_DISCRIMINATOR = "google/electra-small-discriminator"
HF_SNIPPET = f'''\
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

folder = "{BUNDLED_DISCRIMINATOR}"  # run from the project folder
tokenizer = AutoTokenizer.from_pretrained(folder)
model = AutoModelForSequenceClassification.from_pretrained(folder, num_labels=2)
# Only the discriminator is loaded: the generator is not needed any more. Its replaced-token
# head is dropped (the warning lists it) and a new, untrained classifier reads the [CLS] token.
print(type(model).__name__)

texts = ["A warm, funny and beautifully acted film.", "Dull, slow and far too long."]
labels = torch.tensor([1, 0])  # 1 = positive
batch = tokenizer(texts, padding=True, return_tensors="pt")
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
model.train()
loss = model(**batch, labels=labels).loss  # one fine-tuning step: loop over your own data
loss.backward()
optimizer.step()

model.eval()
with torch.no_grad():
    print(model(**batch).logits.softmax(-1))  # P(negative), P(positive) for each text'''


def hub_snippet() -> str:
    """The same code for the hub's discriminator (needs the network the first time)."""
    return HF_SNIPPET.replace(f'"{BUNDLED_DISCRIMINATOR}"  # run from the project folder',
                              f'"{HUB_DISCRIMINATOR}"  # downloaded once, then cached')
