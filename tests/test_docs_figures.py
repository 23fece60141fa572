"""The docs build's figure check (docs/_ext/nb_figures.py) on small notebooks.

The build runs it on every executed notebook page: a notebook that calls a plotting
function must have an image among that cell's outputs, or the page would have no figure.
"""

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "docs" / "_ext" / "nb_figures.py"
_spec = importlib.util.spec_from_file_location("nb_figures", _PATH)
nb_figures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nb_figures)

PNG = {"image/png": "iVBORw0KGgo=", "text/plain": ["<Figure size 640x480 with 1 Axes>"]}


def code(source, *outputs):
    return {
        "cell_type": "code",
        "execution_count": 1,
        "metadata": {},
        "source": source.splitlines(keepends=True),
        "outputs": list(outputs),
    }


def display(data):
    return {"output_type": "display_data", "data": data, "metadata": {}}


def notebook(*cells):
    return {
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# A plot"]}, *cells],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


PLOT = "fig, ax = plt.subplots()\nax.plot([1, 2], [3, 4])\nplt.show()\n"
STDOUT = {"output_type": "stream", "name": "stdout", "text": ["done\n"]}


def test_a_plot_without_image_output_is_reported():
    # what the kernels produced under MPLBACKEND=Agg: plt.show() emitted nothing
    nb = notebook(code("import matplotlib.pyplot as plt"), code(PLOT, STDOUT))
    assert nb_figures.missing_figures(nb) == [(2, "fig, ax = plt.subplots()")]


def test_a_plot_with_its_image_passes():
    nb = notebook(code("import matplotlib.pyplot as plt"), code(PLOT, display(PNG)))
    assert nb_figures.missing_figures(nb) == []


@pytest.mark.parametrize(
    "source",
    [
        "results.plot(x='epsilon', y='accuracy')",  # pandas
        "results['accuracy'].plot.hist()",
        "plt.scatter(x, y)",
        "import matplotlib.pyplot as pyplot\npyplot.figure()",
    ],
)
def test_other_plotting_calls_need_an_image_too(source):
    assert len(nb_figures.missing_figures(notebook(code(source)))) == 1
    assert nb_figures.missing_figures(notebook(code(source, display(PNG)))) == []


def test_cells_that_do_not_plot_need_no_image():
    nb = notebook(
        code("print('no plot')", STDOUT),
        # a helper that draws on axes it is given, and a colormap lookup: no figure yet
        code("def draw(ax, x):\n    ax.plot(x)\n    axes[0].plot(x)\n    plt.get_cmap('tab10')"),
        code("# plt.show() in a comment\n%matplotlib inline"),
        {"cell_type": "markdown", "metadata": {}, "source": ["plt.show()"]},
    )
    assert nb_figures.missing_figures(nb) == []


def test_each_plotting_cell_is_checked_and_an_svg_counts():
    svg = display({"image/svg+xml": "<svg/>", "text/plain": "<Figure>"})
    nb = notebook(code(PLOT, display(PNG)), code(PLOT, svg), code("plt.figure()\nplt.show()"))
    assert nb_figures.missing_figures(nb) == [(3, "plt.figure()")]
