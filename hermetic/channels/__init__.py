"""Alerts read from wherever the plugin puts them: one channel per module, one alert shape.

A *channel* (:class:`~hermetic.channels.channel.Channel`) is a name, the ``[alerts]`` keys a
profile may give it, and one reader that returns store-independent
:class:`~hermetic.channels.alert.ChannelAlert` objects (model, provider, status, reason, message,
and the raw thing the channel saw). :mod:`~hermetic.channels.sqlite` reads the contract's table,
:mod:`~hermetic.channels.otlp` the spans the scenario's collector received,
:mod:`~hermetic.channels.http` the JSON objects a plugin posted to a REST path. A fourth channel
is one new module here defining ``CHANNEL`` (and its name in
``hermetic.profile.model.ALERT_CHANNELS``).

Steps read alerts through :class:`~hermetic.parts.alert_channel.AlertChannel`, the world's part for
the profile's channel, so the same sentences hold for every channel. That part sits a floor
above (the channels are read through a world); this face does not import it.

On the pipeline (runner -> plan -> world and parts -> result -> reports) a channel is what the
world's parts read a plugin's alerts from; the profile names it, so it sits beside the profile.
"""

from hermetic.channels.alert import ChannelAlert
from hermetic.channels.channel import Channel, channels

__all__ = ["Channel", "ChannelAlert", "channels"]
