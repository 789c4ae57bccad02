"""Alerts read from wherever the plugin puts them: one channel per module, one alert shape.

A *channel* (:class:`~hermetic.channels.channel.Channel`) is a module holding its settings (the
``[alerts]`` keys a profile may give it, their rules and descriptions: a
:class:`~hermetic.channels.settings.ChannelSettings` subclass) and one reader that returns
store-independent :class:`~hermetic.channels.alert.ChannelAlert` objects (model, provider,
status, reason, message, and the raw thing the channel saw), reading only what it is given
(:class:`~hermetic.channels.channel.Sources`). The registry (:func:`channels`) finds every module
here that defines ``CHANNEL``; the profile's ``[alerts]`` table, its JSON Schema and the key
reference are built from it, so a new channel is one new module, its tests and its docs page.

Steps read alerts through :class:`~hermetic.parts.alert_channel.AlertChannels`, the world's part for
the profile's channels, so the same sentences hold for every channel. That part sits a floor
above (the channels are read through a world); this face does not import it.

On the pipeline (runner -> plan -> world and parts -> result -> reports) a channel is what the
world's parts read a plugin's alerts from; the profile names it, so it sits beside the profile.
"""

from hermetic.channels.alert import ChannelAlert
from hermetic.channels.channel import Channel, Sources, channels
from hermetic.channels.settings import ChannelSettings

__all__ = ["Channel", "ChannelAlert", "ChannelSettings", "Sources", "channels"]
