"""The live class page (/class), the only gradio of the live class: the layout and its wiring (page.py), the teacher's
and the projector's handlers (teacher.py), a student's (student.py), the pieces that hold no component (screens.py),
the students' address (address.py) and the teacher's hold on the room (moderation.py). The API's /class_* calls are
in explainer/ui/api.py."""
