"""The composition root: settings become a running episode here, in one place.

``factory`` wires model, browser, memory, knowledge, triggers and trajectory;
``resume`` rebuilds a killed run from its folder; ``cli`` holds ``run`` and
``resume``; ``flags`` and ``console`` are what the terminal commands share.
"""
