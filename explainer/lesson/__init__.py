"""Lesson content and its computation: walk-through states, supervised positions, the difficulty
sweep, the quiz and the Hugging Face snippet. No gradio, no plotly."""
