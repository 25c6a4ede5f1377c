"""The live class drawn as escaped HTML (no gradio, no torch): the projector's stage (projector.py), the teacher's
card with its QR code (card.py) and a student's phone screens (phone.py)."""
