"""The live class's store and rules, below the lesson (no gradio, no plotly): its phases and what each lets through
(phases.py), the SQLite store (store.py) with its tables (schema.py) and the records it hands out (records.py).
The rest of the live class, layer by layer: explainer/lesson/live_class/, explainer/render/live_class/,
explainer/ui/live_class/."""
