"""The live class as a lesson (no gradio, no plotly): a class session and what each phase may show (session.py), the
teacher's view (teacher_view.py), who won (match.py), the teacher's own sentences (own_sentences.py) and the
results files (results.py). It plays the rounds of the game "Can you beat ELECTRA?" (explainer/lesson/beat_electra.py)
and keeps them in the store (explainer/core/live_class/)."""
