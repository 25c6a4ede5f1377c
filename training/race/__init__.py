"""RTD against MLM on one budget: settings and their bounds (`settings`), one race (`run`), one race per
server (`manager`), replayable records (`record`) and the statistics over measured races (`campaign`)."""
