"""``metaeval compare --risk-alpha`` / ``metaeval.compare(..., risk_alpha=)``: the risk columns
equal metaeval.meta.risk's values (themselves tested against the papers' formulas in test_risk.py)
and a literal loop; the CLI writes them to compare.csv and prints the risk table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval.cli import main
from metaeval.meta.compare import COMPARE_COLUMNS, RISK_COMPARE_COLUMNS, compare
from metaeval.meta.risk import georisk, risk_based, zrisk
from test_compare import _write_matrices as _write


@pytest.fixture
def mats():
    rng = np.random.default_rng(7)
    runs = ["base", "r1", "r2", "r3"]
    topics = [str(t) for t in range(301, 321)]
    X = rng.uniform(0, 1, size=(20, 4))
    return {"AP": pd.DataFrame(X, index=topics, columns=runs),
            "P@10": pd.DataFrame(np.round(X * 10) / 10, index=topics, columns=runs)}


def test_api_appends_the_risk_columns(mats):
    df = metaeval.compare(mats, baseline="base", risk_alpha=5)
    assert list(df.columns) == COMPARE_COLUMNS + RISK_COMPARE_COLUMNS
    plain = compare(mats, baseline="base")
    pd.testing.assert_frame_equal(df[COMPARE_COLUMNS], plain)
    for metric, X in mats.items():
        b = X["base"].to_numpy()
        for k, run in enumerate(["r1", "r2", "r3"], start=1):
            row = df[(df.metric == metric) & (df.run == run)].iloc[0]
            x = X[run].to_numpy()
            vals = [xi - bi if xi >= bi else 6 * (xi - bi) for xi, bi in zip(x, b)]     # literal loop
            assert row["urisk"] == pytest.approx(sum(vals) / len(vals), abs=1e-15)
            sd = np.std(vals, ddof=1)
            assert row["trisk"] == pytest.approx(np.mean(vals) / (sd / np.sqrt(len(vals))), rel=1e-12)
            assert row["zrisk"] == zrisk(X.to_numpy(), 5)[k]
            assert row["georisk"] == georisk(X.to_numpy(), 5)[k]
            assert row["risk_alpha"] == 5.0
            np.testing.assert_array_equal(risk_based(x, b, 5), vals)


def test_api_needs_a_baseline(mats):
    with pytest.raises(ValueError, match="risk_alpha needs a baseline"):
        compare(mats, risk_alpha=1)


def test_cli_risk_alpha(mats, tmp_path, capsys):
    d = _write(tmp_path, mats)
    out = tmp_path / "o"
    assert main(["compare", "--matrices", str(d), "--baseline", "base", "--risk-alpha", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert text == (out / "compare.md").read_text()
    csv = pd.read_csv(out / "compare.csv")
    assert list(csv.columns) == COMPARE_COLUMNS + RISK_COMPARE_COLUMNS
    ref = compare({m: pd.read_csv(d / f"{m}.csv", index_col=0) for m in ("AP", "P@10")}, baseline="base",
                  risk_alpha=1)
    np.testing.assert_allclose(csv["urisk"], ref["urisk"], rtol=1e-12)
    assert "| metric | run | URisk | TRisk | p | ZRisk | GeoRisk | wins | losses |" in text
    row = ref[(ref.metric == "AP") & (ref.run == "r2")].iloc[0]
    assert (f"| AP | r2 | {row.urisk:.4f} | {row.trisk:.2f} | {row.trisk_p:.4f} | {row.zrisk:.2f} | "
            f"{row.georisk:.4f} | {row.wins} | {row.losses} |") in text
    assert "Wang et al. 2012" in text and "alpha = 1" in text
    tex = (out / "compare.tex").read_text()
    assert tex.count(r"\begin{table}") == 2 and "GeoRisk" in tex


def test_cli_risk_alpha_needs_baseline(mats, tmp_path, capsys):
    d = _write(tmp_path, mats)
    with pytest.raises(SystemExit) as e:
        main(["compare", "--matrices", str(d), "--risk-alpha", "1"])
    assert e.value.code == 2 and "--risk-alpha needs --baseline" in capsys.readouterr().err
