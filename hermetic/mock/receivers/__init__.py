"""The receivers: loopback peers that take what the plugin sends (its webhook, its own backend),
and what they check of a delivery. Come here to …

- :mod:`.collector` — … change the collector a plugin reports to (:class:`Collector`): OTLP/HTTP
  traces, metrics and logs, and any other path of a vendor's backend; what it journals, how it
  answers, failing on demand (503).
- :mod:`.grpc_receiver` — … change the collector's OTLP/gRPC side (``grpc=True``: a port of its
  own, grpcio imported only then).
- :mod:`.collector_cli` — … change ``hermetic collector``, the collector from a shell.
- :mod:`.sink` — … change the webhook receiver (:class:`HttpSink`): any request answered 200, or
  with a status the scenario scripts.
- :mod:`.credentials` — … change where a delivery must carry the stand-in key for a receiver to
  take it, and the finding when the plugin sent none.
- :mod:`.body_matching` — … change when a delivered body names a value or holds a field's text
  (the webhook, backend and alert-field steps).

On the layers they are :mod:`hermetic.mock`'s (floor 4): they stand on its server and journal
(:mod:`hermetic.mock.server`, :mod:`hermetic.mock.journal`), and :mod:`hermetic.mock` exports
:class:`Collector` and :class:`HttpSink`. What a delivery *means* is the channels' business
(:mod:`hermetic.channels`): a receiver undoes the transport and nothing more.
"""

__all__ = ["body_matching", "collector", "collector_cli", "credentials", "grpc_receiver", "sink"]
