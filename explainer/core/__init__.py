"""The Explore core: text ↔ tokens ↔ words, the corrupt-and-detect pipeline, attributions and model
loading. torch, transformers and captum; no gradio, no plotly."""
