"""What hermetic adds to a plugin for its own isolation scenarios stays clear of what the
profile gives the plugin.

An isolation scenario changes the plugin under test on purpose (it writes its key into a log,
sends it to its backend, writes to a fixed path) to prove the suite notices. The added code
must take nothing the profile already gave the plugin, or the plugin is blamed for it:

* its key is the profile's own stand-in when the profile gives one (``{credential}``): a second
  one is a secret the collector does not know (it answers 401, and the run says the plugin
  sent its backend no key), and the leak checks would look for the second and forget the first;
* its variable and its log file never replace a variable or a file the profile set for the
  plugin: a name taken already is prefixed with one no profile may use;
* its backend is a loopback peer of its own (:class:`hermetic.parts.isolation.PluginBackend`),
  never the scenario's collector, so what it sends is neither read as nor judged as a delivery
  of the plugin's own channel.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

#: A profile may set no ``HERMETIC_*`` variable (hermetic.profile refuses them): a name with
#: this prefix is the added code's own.
VARIABLE_PREFIX = "HERMETIC_INJECTED_"
#: The prefix of a file the added code writes when the profile already writes one so named.
FILE_PREFIX = "hermetic-injected-"


def key_variable(wanted: str, given: Mapping[str, str], credential: str) -> str:
    """The variable the added code reads its key from: ``wanted`` when no variable of that name
    is ``given`` to the plugin's processes, or it already holds ``credential`` (the profile's
    own ``{credential}`` variable); else ``wanted`` with :data:`VARIABLE_PREFIX`."""
    if given.get(wanted, credential) == credential:
        return wanted
    return VARIABLE_PREFIX + wanted


def file_name(wanted: str, taken: Collection[str]) -> str:
    """The file (relative to HERMES_HOME) the added code writes: ``wanted``, or its name with
    :data:`FILE_PREFIX` when the profile writes a file there (``taken``: its ``[files]``)."""
    if wanted not in taken:
        return wanted
    folder, _, name = wanted.rpartition("/")
    return f"{folder}/{FILE_PREFIX}{name}" if folder else FILE_PREFIX + name
