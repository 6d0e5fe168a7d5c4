"""The learned evaluation's loop on tiny data, so that it never rots: gen -> store -> train -> export -> a search
with the net.
Also the record format and the trainer's gradients."""

import json

import numpy as np
import pytest

from engine import nnue
from engine.board import Board
from engine.fen import format_fen
from engine.layout import ACC_SIZE, NNUE_HIDDEN
from tests.nnue_support import positions_of_every_bucket
from training import export, features, gen, records, store, train


def test_a_record_keeps_the_board_side_score_and_result():
    board = Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1")
    rec = records.pack(board.board, board.side, -123, 2, 77)
    assert np.array_equal(records.unpack_board(rec), board.board)
    assert (rec["stm"], rec["score"], rec["result"], rec["game"]) == (1, -123, 2, 77)


def test_features_mirror_for_the_other_side():
    """White to move in a position and Black to move in its colour-flipped mirror give the same features."""
    a = Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    b = Board("rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 2 3")
    recs = np.stack([records.pack(a.board, a.side, 0, 1, 0), records.pack(b.board, b.side, 0, 1, 0)])
    own, other, count = features.extract(recs)
    assert count[0] == count[1] == 32
    assert sorted(own[0]) == sorted(own[1]) and sorted(other[0]) == sorted(other[1])


@pytest.mark.parametrize("buckets", [1, 8])
def test_trainer_gradients_match_finite_differences(buckets):
    rng = np.random.default_rng(3)
    boards = []
    for _ in range(64):
        b = Board()
        for _ in range(int(rng.integers(0, 30))):
            moves = b.legal_moves()
            b.push(moves[int(rng.integers(len(moves)))])
        boards.append(records.pack(b.board, b.side, int(rng.integers(-300, 300)), int(rng.integers(0, 3)), 0))
    recs = np.stack(boards)
    own, other, count = features.extract(recs)
    bucket = nnue.bucket_of(count, buckets).astype(np.int8)
    target, _ = train.targets(recs, 200.0, 0.3)
    p = train.init_weights(16, 3, buckets)
    p["b1"][:] = 0.3
    g1, gb1, g2, gb2, scratch = train.gradient_buffers(1, 16, buckets)
    rows = np.arange(len(recs))
    scale = np.float32(2.0)
    flips = np.zeros(len(rows), np.bool_)
    train._gradients(rows, flips, own, other, count, bucket, target, p["w1"], p["b1"], p["w2"], p["b2"], g1, gb1, g2,
                     gb2, scratch, scale, train.MIRROR)

    def loss():
        return train._loss(rows, own, other, count, bucket, target, p["w1"], p["b1"], p["w2"], p["b2"], scratch,
                           scale, train.MIRROR) * len(rows)

    used = sorted(set(bucket.tolist()))  # 1 bucket: [0]; 8: [6, 7] (games of up to 30 plies keep most pieces)
    checks = [("b1", (5,), gb1[0][5]), ("w1", (int(own[0, 0]), 5), g1[0][int(own[0, 0]), 5])]
    checks += [c for o in used for c in (("w2", (o, 3), g2[0][o, 3]), ("b2", (o,), gb2[0][o]))]
    assert len(used) == min(buckets, 2)
    for name, idx, grad in checks:
        eps = 1e-3  # small: a coarser step crosses the activation's clamp on some units
        p[name][idx] += eps
        up = loss()
        p[name][idx] -= 2 * eps
        down = loss()
        p[name][idx] += eps
        assert (up - down) / (2 * eps) == pytest.approx(grad, rel=0.02, abs=1e-3), name
    # A bucket no position falls in learns nothing.
    assert all(not np.any(g2[0][k]) and gb2[0][k] == 0 for k in range(buckets) if k not in used)


def test_mirrored_features_flip_the_file_and_nothing_else():
    board = Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    mirror_fen = "r2k3r/1bpqpp1p/1pnp2nb/3NP3/3P2p1/p1Q2N2/PPPBBPPP/R2K3R w - - 0 1"
    a, b = Board(mirror_fen), board
    recs = np.stack([records.pack(b.board, 0, 0, 1, 0), records.pack(a.board, 0, 0, 1, 0)])
    own, other, count = features.extract(recs)
    assert sorted(train.MIRROR[own[0, :count[0]]]) == sorted(own[1, :count[1]])
    assert sorted(train.MIRROR[other[0, :count[0]]]) == sorted(other[1, :count[1]])
    assert np.array_equal(train.MIRROR[train.MIRROR], np.arange(768))


def test_a_net_file_read_back_as_float_weights_quantises_to_the_same_file():
    """train --init starts from the shipped net's weights: exactly those, once quantised again."""
    shipped = nnue.read(nnue.DEFAULT_NET)
    again = export.quantise(train.weights_of_net(nnue.DEFAULT_NET))
    for a, b in zip(shipped, again, strict=True):
        assert np.array_equal(a, b)


def test_init_from_one_bucket_into_eight_evaluates_exactly_as_the_net_did(tmp_path, backend):
    """train --init NET --buckets 8 with NET of one bucket: each bucket a copy of its output layer, so before any
    training step the trainer's float net and the exported net answer as NET does, in every bucket."""
    one = train.weights_of_net(nnue.DEFAULT_NET)
    eight = train.weights_of_net(nnue.DEFAULT_NET, 8)
    assert eight["w2"].shape == (8, 2 * NNUE_HIDDEN) and eight["b2"].shape == (8,)
    positions = [b for boards in positions_of_every_bucket(6, seed=7).values() for b in boards]
    recs = np.stack([records.pack(b.board, b.side, 0, 1, 0) for b in positions])
    own, other, count = features.extract(recs)
    assert set(nnue.bucket_of(count, 8)) == set(range(8))
    assert np.array_equal(export.float_eval(one, own, other, count), export.float_eval(eight, own, other, count))

    weights = tmp_path / "eight.npz"
    np.savez(weights, **eight, settings=json.dumps({"buckets": 8}))
    export.export(weights, tmp_path / "eight.nnue")
    eight_net = nnue.read(tmp_path / "eight.nnue")
    assert len(eight_net[3]) == 8
    shipped, bucketed = nnue.load(), nnue.pack(*eight_net)
    acc = np.zeros(ACC_SIZE, np.int16)
    for board in positions:
        backend.nnue_refresh(shipped, acc, 0, *board.arrays)
        assert backend.nnue_evaluate(bucketed, acc, 0, *board.arrays) == backend.nnue_evaluate(shipped, acc, 0,
                                                                                               *board.arrays)


def test_a_checkpoint_from_before_buckets_reads_as_one_bucket():
    p = train.init_weights(16, 1)
    old = {**p, "w2": p["w2"].reshape(-1), "b2": p["b2"][:1]}
    again = train.with_buckets(old)
    assert again["w2"].shape == (1, 32) and again["b2"].shape == (1,) and np.array_equal(again["w2"], p["w2"])


def test_held_back_games_are_spread_over_every_worker():
    recs = np.zeros(10000, records.RECORD)
    recs["game"] = np.arange(0, 20000, 2)  # one worker's games: all even
    share = train.held_back(recs).mean()
    assert 0.01 < share < 0.04


def test_weight_decay_shrinks_the_weights_apart_from_the_gradient():
    """AdamW: with no gradient a step shrinks each weight by lr x decay of itself; without decay it stays
    (Adam's step is 0 for a zero gradient and zero moments); with a gradient the decay adds the same shrink
    to Adam's own step, and the clip still holds."""
    p0 = np.linspace(-1.5, 1.5, 64).astype(np.float32)
    zero = np.zeros_like(p0)

    def step(p, g, decay):
        p, m, v = p.copy(), np.zeros_like(p), np.zeros_like(p)
        train._adam(p, g, m, v, 1e-3, 1, 1.98, decay)
        return p

    assert np.array_equal(step(p0, zero, 0.0), p0)
    assert np.allclose(step(p0, zero, 0.5), p0 * (1 - 1e-3 * 0.5), rtol=1e-6)
    g = np.full_like(p0, 0.25)
    assert np.allclose(step(p0, g, 0.5) - step(p0, g, 0.0), -p0 * 1e-3 * 0.5, atol=1e-6)
    assert np.abs(step(np.full(8, 1.98, np.float32), np.full(8, -1.0, np.float32), 0.0)).max() <= 1.98


def test_fit_k_recovers_the_scale_of_a_logistic():
    rng = np.random.default_rng(1)
    scores = rng.normal(0, 300, 50000)
    results = (rng.random(50000) < 1 / (1 + np.exp(-scores / 180))).astype(float)
    assert train.fit_k(scores, results) == pytest.approx(180, rel=0.08)


def test_selfplay_records_the_nets_own_scores_not_the_searchs_ending_scale():
    from engine.layout import S_PARAMS
    from engine.params import DEFAULTS, INDEX

    assert DEFAULTS[INDEX["EgScale"]] != 64  # the engine scales endings; gen's searches must not
    player = gen.Player(300, 1200)
    assert player.template[S_PARAMS + INDEX["EgScale"]] == 64
    assert all(player.template[S_PARAMS + i] == DEFAULTS[i] for i in range(len(DEFAULTS)) if i != INDEX["EgScale"])


@pytest.mark.slow
def test_selfplay_searches_to_the_soft_limit_and_each_game_starts_afresh():
    book = [line for line in gen.BOOK.read_text().splitlines() if line.strip()]
    player = gen.Player(300, 1200)
    first_game, first, plies = player.game(5, 0, book)
    nodes, depths, searches = player.stats
    # Every search ends its last depth past the soft limit and never runs past the hard one.
    assert searches >= plies > 0 and 300 * searches <= nodes <= 1200 * searches and depths >= 2 * searches
    player.game(5, 1, book)  # another game in between: its table and histories must not carry over
    again_game, again, _ = player.game(5, 0, book)
    assert np.array_equal(first, again) and again_game == first_game
    _, fresh, _ = gen.Player(300, 1200).game(5, 0, book)
    assert np.array_equal(first, fresh)


@pytest.mark.slow
def test_a_chess960_share_starts_games_from_960_starts_and_none_leaves_the_games_as_they_were():
    book = [line for line in gen.BOOK.read_text().splitlines() if line.strip()]
    player = gen.Player(300, 1200)
    _, standard, _ = player.game(5, 0, book)
    assert np.array_equal(standard, player.game(5, 0, book, chess960=0.0)[1])
    back_ranks = set()
    for game in range(4):
        played, recs, plies = player.game(5, game, book, chess960=1.0)
        assert plies > 0 and len(recs) and played.chess960
        board = records.unpack_board(recs[0])  # a few random plies in: most of the back rank still stands
        back_ranks.add(tuple(int(board[sq]) for sq in range(8)))
    standard_rank = (4, 2, 3, 5, 6, 3, 2, 4)  # R N B Q K B N R (engine.layout's codes)
    assert len(back_ranks) > 1 and any(sum(a != b for a, b in zip(r, standard_rank, strict=True)) >= 4
                                       for r in back_ranks)


@pytest.mark.slow
@pytest.mark.parametrize("buckets", [1, 8])
def test_the_whole_pipeline_on_tiny_data(tmp_path, monkeypatch, buckets):
    data = tmp_path / "games"
    gen.run("tiny", store_dir=data, seed=3, workers=0, nodes=300, games=2, chunk_games=1)
    recs = store.load(data)
    assert len(recs) > 20
    assert set(np.unique(recs["result"])) <= {0, 1, 2}
    chunk = store.read_header(store.chunks(data)[0])
    assert chunk["provenance"]["nodes"] == 300 and chunk["provenance"]["seed"] == 3
    assert chunk["provenance"]["params"] == {"EgScale": 64}  # targets in the net's own units

    # Resuming appends the next games, not the same ones again.
    gen.run("tiny", store_dir=data, seed=3, workers=0, nodes=300, games=3, chunk_games=1)
    again = store.load(data)
    assert len(again) > len(recs) and set(np.unique(again["game"])) == {0, 1, 2}
    assert len(store.chunks(data)) == 3

    weights = tmp_path / "net.npz"
    params, settings = train.train([data], weights, hidden=NNUE_HIDDEN, epochs=2, batch=64, buckets=buckets,
                                   log=lambda s: None)
    assert len(settings["history"]) == 2 and settings["positions"] == len(again) and settings["buckets"] == buckets
    assert params["w2"].shape == (buckets, 2 * NNUE_HIDDEN)
    net_file = tmp_path / "tiny.nnue"
    export.export(weights, net_file, sample=again[:50])
    provenance = json.loads(net_file.with_suffix(".json").read_text())
    assert provenance["quantisation"]["mean_abs_diff_cp"] < 10 and provenance["buckets"] == buckets
    assert len(nnue.read(net_file)[3]) == buckets

    # The engine loads the exported net, evaluates as the exporter's numpy formula does, and searches with it.
    from engine import analyse, native

    net = nnue.load(net_file)
    monkeypatch.setattr(native, "NET", net)
    start = Board()
    acc = np.zeros(ACC_SIZE, np.int16)
    sample = again[::max(1, len(again) // 40)]
    expected = export.quantised_eval(*nnue.read(net_file), *features.extract(sample))
    for rec, want in zip(sample, expected, strict=True):
        board = Board(format_fen(records.unpack_board(rec), int(rec["stm"]), 0, -1, 0, 1))
        native.core.nnue_refresh(net, acc, 0, *board.arrays)
        assert native.core.nnue_evaluate(net, acc, 0, *board.arrays) == want
    r = analyse(depth=6)
    start.parse_uci(r.best_move)  # legal, or IllegalMoveError

    # The next round starts from the exported net (train --init) and records where it started.
    tuned = tmp_path / "tuned.npz"
    _, settings = train.train([data], tuned, hidden=NNUE_HIDDEN, epochs=1, batch=64, lr=1e-4, init=net_file,
                              log=lambda s: None)
    assert settings["init"] == str(net_file) and len(settings["history"]) == 1 and settings["buckets"] == buckets
    start_val = settings["init_val_loss"]  # the starting net's loss on the held-back games, before any step
    assert 0 < start_val < 1
    _, resumed = train.train([data], tuned, hidden=NNUE_HIDDEN, epochs=2, batch=64, lr=1e-4, init=net_file,
                             resume=True, log=lambda s: None)
    assert len(resumed["history"]) == 2 and resumed["init_val_loss"] == start_val  # kept by the checkpoint
    export.export(tuned, tmp_path / "tuned.nnue")
    lineage = json.loads((tmp_path / "tuned.json").read_text())
    assert lineage["init"] == str(net_file) and lineage["init_net"] == provenance

    if buckets == 1:  # --init from it into 8 buckets: before a training step, its very evaluations in every bucket
        bucketed = tmp_path / "bucketed.npz"
        _, settings = train.train([data], bucketed, hidden=NNUE_HIDDEN, epochs=0, init=net_file, buckets=8,
                                  log=lambda s: None)
        assert settings["buckets"] == 8
        assert settings["init_val_loss"] == pytest.approx(start_val, rel=1e-5)  # the same evaluations, so the same loss
        export.export(bucketed, tmp_path / "bucketed.nnue")
        assert np.array_equal(export.quantised_eval(*nnue.read(tmp_path / "bucketed.nnue"), *features.extract(again)),
                              export.quantised_eval(*nnue.read(net_file), *features.extract(again)))


def test_scale_reads_how_much_larger_a_net_scores_the_held_back_positions(tmp_path):
    from engine.nnue import DEFAULT_NET
    from training import scale

    rng = np.random.default_rng(5)
    games = [g for g in range(2000) if train.held_back(np.array([(0, 0, 0, 0, 0, g)], records.RECORD))[0]][:20]
    recs = []
    for game in games:
        board = Board()
        for _ in range(int(rng.integers(6, 30))):  # a position some random moves from the start
            moves = board.legal_moves()
            if not moves:
                break
            board.push(moves[int(rng.integers(len(moves)))])
        recs.append(records.pack(board.board.astype(np.int8), board.side, 0, 1, game))
    (tmp_path / "data").mkdir()
    np.concatenate([r.reshape(1) for r in recs]).tofile(tmp_path / "data" / "positions.bin")
    w1, b1, w2, b2 = nnue.read(DEFAULT_NET)
    nnue.write(tmp_path / "twice.nnue", w1, b1, 2 * w2.astype(np.int32), 2 * np.asarray(b2))
    n, _, _, same, corr = scale.compare(DEFAULT_NET, DEFAULT_NET, [tmp_path / "data"])
    assert 10 <= n <= len(games) and same == pytest.approx(1.0) and corr == pytest.approx(1.0)  # |eval| > 10 pawns out
    _, mean_twice, mean_old, twice, _ = scale.compare(tmp_path / "twice.nnue", DEFAULT_NET, [tmp_path / "data"])
    assert twice == pytest.approx(2.0, abs=0.01) and mean_twice == pytest.approx(2 * mean_old, rel=0.01)
    # export --rescale: the shipped net's own weights, every evaluation 1.25 times as large once quantised.
    weights = tmp_path / "shipped.npz"
    np.savez(weights, **train.weights_of_net(DEFAULT_NET), settings=json.dumps({}))
    export.export(weights, tmp_path / "larger.nnue", rescale=1.25)
    _, _, _, larger, corr = scale.compare(tmp_path / "larger.nnue", DEFAULT_NET, [tmp_path / "data"])
    assert larger == pytest.approx(1.25, abs=0.01) and corr == pytest.approx(1.0, abs=1e-3)
    assert json.loads((tmp_path / "larger.json").read_text())["rescale"] == 1.25
    with pytest.raises(SystemExit, match="--rescale 4"):
        export.export(weights, tmp_path / "no.nnue", rescale=4)


def test_self_play_draws_by_the_engines_own_rules():
    """training/selfplay.py counts repetitions with engine/game_over.py's rule, compiled, and ends dead material
    with the search's own check (issue 67: it had a popcount and draw checks of its own)."""
    from engine.board import Board
    from engine.game_over import insufficient_material, repetitions
    from training import selfplay

    board = Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    counts = []
    for move in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2:
        board.push_uci(move)
        counts.append((repetitions(board), selfplay._repetitions(board.keys, board.ply, board.halfmove_clock)))
    assert [python for python, _ in counts] == [1, 1, 1, 2, 2, 2, 2, 3]
    assert all(python == compiled for python, compiled in counts)
    for fen, dead in [("8/8/4k3/8/8/2N5/4K3/8 w - - 0 1", True), ("8/8/4k3/8/8/2NB4/4K3/8 w - - 0 1", False),
                      ("8/8/4k3/8/8/2P5/4K3/8 w - - 0 1", False)]:
        board = Board(fen)
        assert selfplay._insufficient_material(board.bb) == dead == insufficient_material(board)
