import pytest
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid

from benchmarks import model_selection


@pytest.mark.parametrize("name", sorted(model_selection.GRIDS))
def test_every_grid_has_12_candidates_and_holds_the_default(name):
    # issue 25's done-when needs a grid of at least 12 candidates; (a) fits the
    # estimator's defaults, so the grid must contain them for the comparison to be fair
    make, grid = model_selection.GRIDS[name]
    task = model_selection._task("iris")
    defaults = make(task).get_params()
    assert len(ParameterGrid(grid)) >= 12
    assert any(all(point[k] == defaults[k] for k in grid) for point in ParameterGrid(grid))


@pytest.mark.parametrize("grid", ["svm-wide", "svm-kernel", "nb", "fm", "logistic"])
def test_run_one_spends_the_total_for_every_method(grid):
    task = model_selection._task("iris")
    rows = model_selection.run_one(task, 2.0, seed=0, grid=grid, n_iter=4)
    assert [r["method"] for r in rows] == list(model_selection.METHODS[:3])
    assert all(r["spent"] == pytest.approx(2.0) for r in rows)
    assert all(0.0 <= r["accuracy"] <= 1.0 for r in rows)
    chosen = rows[0]["chosen"]
    assert chosen in list(ParameterGrid(model_selection.GRIDS[grid][1]))


def test_divided_gridsearch_gives_each_fit_its_share():
    task = model_selection._task("iris")
    models = model_selection._models(
        task, 6.1, 0, "geometric", grid="svm", validation_fraction=0.35
    )
    assert models["private search"].validation_fraction == 0.35
    divided = models["(b) divided GridSearchCV"]
    # 12 candidates x 5 folds + 1 refit = 61 fits at 0.1 each
    assert clone(divided.estimator).get_params()["model__epsilon"] == pytest.approx(0.1)


def test_candidates_alone_fits_every_grid_point_at_the_total(tmp_path, capsys):
    out = tmp_path / "candidates.csv"
    options = ["--datasets", "iris", "--epsilons", "5", "--seeds", "1", "--grid", "svm"]
    assert model_selection.main([*options, "--candidates", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.count("| iris | 5 |") == 12
    assert "{'C': 1.0, 'mechanism': 'objective'}" in text  # the default, as (a) fits it
