"""Sphinx configuration of skdp's documentation (``make -C docs html``)."""

import os
import shutil
import sys
import warnings
from pathlib import Path

import skdp

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))

project = "skdp"
author = "skdp developers"
copyright = "2026, skdp developers"
release = skdp.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
    "nb_figures",  # docs/_ext: fails the build when an executed notebook shows no figure
    "sphinx_gallery.gen_gallery",
]

exclude_patterns = [
    "_build",
    "**.ipynb_checkpoints",
    # sphinx-gallery writes notebooks and timings next to its pages: not sources
    "auto_examples/*.ipynb",
    "sg_execution_times.rst",
    "auto_examples/sg_execution_times.rst",
]
templates_path = ["_templates"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

# -- API reference ----------------------------------------------------------------------
autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# -- notebooks (executed on every build: they are checked in CI) --------------------------
# The notebooks live in ../notebooks (where users open them); the build copies them in.
_NOTEBOOKS = DOCS / "notebooks"
if _NOTEBOOKS.exists():
    shutil.rmtree(_NOTEBOOKS)
_NOTEBOOKS.mkdir()
for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
    shutil.copy(notebook, _NOTEBOOKS / notebook.name)
(_NOTEBOOKS / "index.md").write_text(
    "# Notebooks\n\n"
    "Short tours, executed on every build of these pages. The notebooks are in the\n"
    "repository's `notebooks/` folder: open them in Jupyter to change the settings.\n\n"
    "```{toctree}\n:maxdepth: 1\n:glob:\n\n*\n```\n"
)
nb_execution_mode = "force"
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

# -- gallery ----------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "only_warn_on_example_error": False,
    "abort_on_example_error": True,
    "reference_url": {"skdp": None},
    "doc_module": ("skdp",),
    "backreferences_dir": "generated/backreferences",
}
# The notebook kernels inherit this environment. With the inline backend, plt.show()
# puts each figure in the cell's outputs (with Agg, set here before or in the caller's
# environment, it emitted nothing and the notebook pages had no figures). It is set, not
# defaulted, so that a caller's MPLBACKEND=Agg cannot hide the figures; nb_figures fails
# the build if they are missing. sphinx-gallery switches its own process to Agg itself.
os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
# matplotlib's font cache message is not a documentation problem
warnings.filterwarnings("ignore", message="Matplotlib is building the font cache")

# -- HTML -------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"skdp {release}"
html_static_path = ["_static"]
html_css_files = ["skdp.css"]
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_show_sourcelink = False
# single pages: no empty section navigation on the left
html_sidebars = {"getting_started": [], "privacy": [], "index": [], "changelog": []}
