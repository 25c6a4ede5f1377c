"""Views: results -> plotly figures and escaped HTML. `style` holds the palette and the chips; one module
per view (explore, classroom, training). No gradio, no torch."""
