"""Sphinx extension: fail the build when an executed notebook plots but shows no figure.

myst-nb executes every notebook page (``nb_execution_mode = "force"``) and writes the
executed notebook to its output folder (``<builddir>/jupyter_execute``). After each such
page is read, this extension opens that notebook and raises, naming the page and the
cells, when a code cell calls a plotting function (``plt.show()``, ``plt.subplots(...)``,
``df.plot(...)``, ...) but none of its outputs is an image. That is what happens when the
kernel runs matplotlib with a non-inline backend (for instance ``MPLBACKEND=Agg``
inherited from the build): ``plt.show()`` then emits nothing and the page has no figure.

:func:`missing_figures` is the check itself, on a notebook as a dict in the nbformat 4
layout; ``tests/test_docs_figures.py`` tests it.
"""

import json
import re
from pathlib import Path

try:
    from sphinx.errors import SphinxError
except ImportError:  # the unit tests of missing_figures need no sphinx
    SphinxError = RuntimeError

__all__ = ["IMAGE_TYPES", "PLOT_CALL", "MissingFigureError", "missing_figures", "setup"]


class MissingFigureError(SphinxError):
    """An executed notebook page plots but has no image: the page would show no figure."""

    category = "Notebook page without its figure"


# a call that draws or shows a figure (not a helper such as plt.get_cmap)
PLOT_CALL = re.compile(
    r"\b(?:plt|pyplot)\.(?:show|figure|subplots?|subplot_mosaic|plot|scatter|bar|barh|hist"
    r"|imshow|pcolormesh|contourf?|errorbar|fill_between|step|pie|boxplot|violinplot)\s*\("
    # pandas: df.plot(...), df["a"].plot.bar(...); not ax.plot(...), which draws on an
    # existing figure (a helper that only draws on axes it is given does not show one)
    r"|\b(?!(?:ax|axs|axes)\b)\w+(?:\[[^\]]*\])?\.plot(?:\.\w+)?\s*\("
)
IMAGE_TYPES = ("image/png", "image/svg+xml", "image/jpeg")


def _text(value):
    return "".join(value) if isinstance(value, list) else value


def _code_lines(source):
    """The lines of a cell's source, without comment lines and IPython magics."""
    return [
        line
        for line in _text(source).splitlines()
        if not line.lstrip().startswith(("#", "%", "!"))
    ]


def _has_image(outputs):
    return any(
        kind in output.get("data", {})
        for output in outputs
        if output.get("output_type") in ("display_data", "execute_result")
        for kind in IMAGE_TYPES
    )


def missing_figures(notebook):
    """Return the code cells of an executed notebook that plot but show no image.

    Parameters
    ----------
    notebook : dict
        An executed notebook in the nbformat 4 layout (``json.load`` of an ``.ipynb``
        file, or an ``nbformat.NotebookNode``).

    Returns
    -------
    cells : list of tuple (int, str)
        For each offending code cell, its index among the notebook's cells and its
        first plotting line. Empty when every cell that calls a plotting function has
        an image among its outputs.
    """
    problems = []
    for index, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        calls = [line for line in _code_lines(cell.get("source", "")) if PLOT_CALL.search(line)]
        if calls and not _has_image(cell.get("outputs", [])):
            problems.append((index, calls[0].strip()))
    return problems


def _executed_notebook(app, docname):
    """Path of the notebook myst-nb executed for ``docname`` in this build, or None."""
    from myst_nb.sphinx_ import NbMetadataCollector

    if NbMetadataCollector.get_exec_data(app.env, docname) is None:
        return None
    *folders, name = docname.split("/")
    path = Path(app.env.mystnb_config.output_folder, *folders, f"{name}.ipynb")
    return path if path.is_file() else None


def check_doctree(app, doctree):
    """``doctree-read`` handler: raise when the page's executed notebook lacks a figure."""
    docname = app.env.docname
    path = _executed_notebook(app, docname)
    if path is None:
        return
    problems = missing_figures(json.loads(path.read_text(encoding="utf-8")))
    if problems:
        cells = "; ".join(f"cell {index} ({line})" for index, line in problems)
        raise MissingFigureError(
            f"{docname}: executed notebook {path} plots but has no image output in {cells}. "
            "The page would show no figure: the kernel must use matplotlib's inline backend "
            "(docs/conf.py sets MPLBACKEND for the kernels; do not override it with Agg)."
        )


def setup(app):
    """Register the check (Sphinx entry point)."""
    app.setup_extension("myst_nb")
    app.connect("doctree-read", check_doctree)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
