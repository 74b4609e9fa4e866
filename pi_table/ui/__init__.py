"""Pure renderers: from the views to what the LEDs and the screens show."""
