"""The documentation site's pages made from the code (mkdocs.yml's ``hooks:`` loads
:mod:`.pages`): the command line from the parsers ``hermetic`` itself uses, the step catalogue,
the alert contract.

The top floor of the import graph: the command-line page reads every command's parser
(``hermetic.cli``), so nothing of the library imports this package.
"""

__all__ = ["pages"]
