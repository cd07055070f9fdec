"""The agents that look ahead: greedy and ISMCTS, and the samples of hidden cards they search.

The central property (issue 17): ISMCTS cannot see hidden cards. Its choices are the same
when the cards its player cannot see are permuted in a way its view cannot tell (and the
test proves it would notice a searcher that peeks).
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.agents import seat_agents
from cardsmith.interpreter.determinize import Determinizer, starting_sides
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.greedy import GreedyAgent, Standing, standing_for
from cardsmith.interpreter.ismcts import ISMCTSAgent, rewards_of
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.visibility import sees

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "tests" / "games" / "high_card_duel.cards"


@pytest.fixture(scope="module")
def duel():
    return load_game(str(DUEL))


def at_decision(game, seed: int, answers: list[int]) -> Engine:
    """The game of `seed` after the given answers (each taken modulo the options)."""
    eng = Engine(game, 2, seed, log=False)
    for a in answers:
        eng.decide(a % len(eng.pending.options))
    return eng


def hidden_to(eng: Engine, player: int) -> list[tuple[str, int, int]]:
    """Where the cards `player` may not see lie: (zone key, position, card). Written here from
    the visibility rule, not taken from the module under test."""
    st, zones = eng.state, eng.prog.decls.zones
    out = []
    for key, cards in st.zones.items():
        name, _, seat = key.partition(":")
        for i, c in enumerate(cards):
            if not sees(zones[name].visibility, int(seat) if seat else None, st.face_up[c], player):
                out.append((key, i, c))
    return out


def permuted(eng: Engine, player: int, rng: random.Random) -> Engine:
    """The same game as `player` sees it, with the hidden cards permuted: each place keeps its
    face and owner, cards move among those the game file starts on the same side."""
    data = eng.save()
    st = data["state"]
    sides = starting_sides(eng.game)
    places = hidden_to(eng, player)
    by_side: dict[int, list] = {}
    for place in places:
        by_side.setdefault(sides[place[2]], []).append(place)
    face, owner = list(st["face_up"]), list(st["owner"])
    for group in by_side.values():
        cards = [c for _, _, c in group]
        rng.shuffle(cards)
        for (key, i, was), now in zip(group, cards):
            st["zones"][key][i] = now
            st["card_zone"][now] = key
            face[now], owner[now] = eng.state.face_up[was], eng.state.owner[was]
    st["face_up"], st["owner"] = face, owner
    return Engine.restore(eng.game, data, log=False)


class Peeking:
    """A sampler that hands the search the true game: what a cheating agent would search."""

    def sample(self, eng, player, rng, base=None):
        return dict(base if base is not None else eng.save())


# ---------------------------------------------------------------- the samples


def test_a_sample_looks_the_same_to_the_player_and_deals_the_hidden_cards_again(duel):
    eng = at_decision(duel, 3, [0, 1])
    player = eng.pending.player
    sampler = Determinizer(duel)
    rng = random.Random(1)
    true_other_hand = sorted(eng.state.zones[f"hand:{1 - player}"])
    seen_other_hands = set()
    for _ in range(20):
        sample = Engine.restore(duel, sampler.sample(eng, player, rng), log=False)
        assert sample.view(player) == eng.view(player)
        assert sample.pending == eng.pending
        seen_other_hands.add(tuple(sorted(sample.state.zones[f"hand:{1 - player}"])))
        every = sorted(c for cards in sample.state.zones.values() for c in cards)
        assert every == list(range(len(duel.cards)))       # every card once, none lost or doubled
    assert len(seen_other_hands) > 1 and seen_other_hands != {tuple(true_other_hand)}


def test_a_sample_depends_only_on_the_view(duel):
    eng = at_decision(duel, 5, [1])
    player = eng.pending.player
    other = permuted(eng, player, random.Random(9))
    assert other.view(player) == eng.view(player)
    assert other.state.zones != eng.state.zones
    sampler = Determinizer(duel)
    assert sampler.sample(eng, player, random.Random(4)) == sampler.sample(other, player, random.Random(4))


def test_the_random_generator_is_not_the_true_one(duel):
    eng = at_decision(duel, 2, [])
    data = Determinizer(duel).sample(eng, eng.pending.player, random.Random(0))
    assert data["state"]["rng"] != eng.save()["state"]["rng"]


def test_the_register_of_secret_picks_is_the_documented_one():
    from cardsmith.interpreter.determinize import PICKS_REGISTER
    from cardsmith.interpreter.state import REGISTERS
    assert PICKS_REGISTER in REGISTERS


def test_a_secret_pick_of_another_player_follows_its_place(tmp_path):
    """While the second player picks secretly, the first player's pick (a card of their hidden
    hand) is dealt again with the hand: the pick names whatever card now lies there."""
    path = tmp_path / "secret.cards"
    path.write_text('''game "Secret":
    players: 2 to 2
zone deck: shared, ordered, hidden
zone hand: per player, unordered, owner only
zone table: shared, unordered, public
card type N:
    rank: number
cards N in deck:
    | name | rank | copies |
    | "A"  | 1    | 3      |
    | "B"  | 2    | 3      |
    | "C"  | 3    | 3      |
setup:
    for each p in players:
        repeat 3 times:
            move top card of deck to p's hand
round "R":
    each player in players secretly chooses c from cards in your hand:
        move c to table face up
    first(players) wins
''')
    game = load_game(str(path))
    eng = Engine(game, 2, 1, log=False)
    eng.decide(0)                           # seat 1 picks; now seat 2 is asked
    assert eng.pending.player == 1
    picks = [v for fr in eng.state.frames for k, v in fr.env.items() if k.startswith("$picks")]
    true_pick = picks[-1][0]
    sampler = Determinizer(game)
    rng = random.Random(3)
    seen = set()
    for _ in range(30):
        data = sampler.sample(eng, 1, rng)
        st = data["state"]
        pick = [v for _, _, env in st["frames"] for k, v in env.items() if k.startswith("$picks")][-1][0]
        assert st["card_zone"][pick] == "hand:0"        # still a card of seat 1's hand
        seen.add(st["cards"][pick]["name"])
    assert len(seen) > 1, f"the sample always knew seat 1 picked {eng.state.cards[true_pick]['name']}"


# ---------------------------------------------------------------- ISMCTS cannot see hidden cards


POSITIONS = [(1, []), (2, [0, 1]), (4, [1, 0, 2]), (6, []), (7, [0]), (11, [2, 2, 1, 0])]


def test_ismcts_choices_are_unchanged_when_hidden_cards_are_permuted(duel):
    for seed, answers in POSITIONS:
        eng = at_decision(duel, seed, answers)
        player = eng.pending.player
        for k in range(2):
            other = permuted(eng, player, random.Random(100 * seed + k))
            assert other.view(player) == eng.view(player)
            a = ISMCTSAgent(seed=17, iterations=60).choose_in(eng)
            b = ISMCTSAgent(seed=17, iterations=60).choose_in(other)
            assert a == b, f"seed {seed}: the choice changed with the hidden cards"


def test_the_permutation_test_would_catch_a_search_that_peeks(duel):
    """The same positions, searched on the true game: some choice changes with the hidden
    cards, so the test above would fail an agent that read them."""
    changed = 0
    for seed, answers in POSITIONS:
        eng = at_decision(duel, seed, answers)
        player = eng.pending.player
        for k in range(2):
            other = permuted(eng, player, random.Random(100 * seed + k))
            a = ISMCTSAgent(seed=17, iterations=60, sampler=Peeking()).choose_in(eng)
            b = ISMCTSAgent(seed=17, iterations=60, sampler=Peeking()).choose_in(other)
            changed += a != b
    assert changed > 0


def test_a_game_with_search_agents_replays_identically(duel):
    def one():
        eng = run_game(duel, 2, 8, seat_agents(["ismcts:30", "greedy"], 8), log=True)
        return eng.log_jsonl()
    assert one() == one()


def test_an_ismcts_budget_in_milliseconds_runs_at_least_one_iteration(duel):
    eng = at_decision(duel, 1, [])
    agent = ISMCTSAgent(seed=1, milliseconds=5)
    assert 0 <= agent.choose_in(eng) < len(eng.pending.options)
    assert agent.last_iterations >= 1


@pytest.mark.parametrize("kwargs", [{"iterations": 0}, {"iterations": None}, {"milliseconds": 0}])
def test_ismcts_refuses_no_budget(kwargs):
    with pytest.raises(ValueError):
        ISMCTSAgent(seed=1, **kwargs)


def test_ismcts_takes_more_tricks_than_random_at_high_card_duel(duel):
    """Not a benchmark (bench/bench_agents.py is): over 30 seeded games against the same random
    seat 2, ISMCTS as seat 1 takes clearly more tricks than its opponent; random does not."""
    def margin(first: str) -> int:
        n = 0
        for seed in range(30):
            players = run_game(duel, 2, seed, seat_agents([first, "random"], seed), log=False).state.players
            n += players[0]["score"] - players[1]["score"]
        return n
    searched, blind = margin("ismcts:40"), margin("random")
    assert searched > blind + 10, (searched, blind)


# ---------------------------------------------------------------- greedy and the value


def test_greedy_answers_with_the_lowest_card_that_wins_the_trick(duel):
    checked = 0
    for seed in range(12):
        eng = at_decision(duel, seed, [seed])       # seat 1 leads; seat 2 answers
        assert eng.pending.prompt == "Answer the lead"
        st = eng.state
        lead = st.cards[st.zones["table:0"][-1]]["rank"]
        ranks = [st.cards[c]["rank"] for c in st.zones["hand:1"]]
        options = eng.state.pending["options"]
        beating = [r for r in ranks if r > lead]
        want = min(beating) if beating else min(ranks)
        got = st.cards[options[GreedyAgent(seed=seed).choose_in(eng)]]["rank"]
        assert got == want, f"seed {seed}: lead {lead}, hand {ranks}"
        checked += 1
    assert checked == 12


def test_the_value_is_read_for_each_player(duel):
    eng = at_decision(duel, 3, [0, 0])
    standing = standing_for(duel)
    assert standing.source == "value"
    for p in range(2):
        hand = sum(eng.state.cards[c]["rank"] for c in eng.state.zones[f"hand:{p}"])
        assert standing.value(eng, p) == eng.state.players[p]["score"] * 10 + hand


GAME_HEAD = '''game "Tiny":
    players: 2 to 2
zone pile: shared, ordered, public
card type C:
    n: number
cards C in pile:
    | name | n |
    | "X"  | 1 |
round "R":
    first(players) wins
'''


def test_without_a_value_the_standing_falls_back_to_score_then_to_winning(tmp_path):
    with_score = tmp_path / "score.cards"
    with_score.write_text(GAME_HEAD + "player has:\n    score: number = 4\n")
    plain = tmp_path / "plain.cards"
    plain.write_text(GAME_HEAD)
    scored, bare = load_game(str(with_score)), load_game(str(plain))
    assert Standing(scored).source == "score attribute" and Standing(bare).source == "winning"
    eng = Engine(scored, 2, 1, log=False)         # finished at once: seat 1 wins
    assert Standing(scored).value(eng, 0) == 4.0
    assert Standing(bare).value(Engine(bare, 2, 1, log=False), 0) is None
    assert Standing(scored).of(eng, 0) > Standing(scored).of(eng, 1)
    assert rewards_of(eng) == [1.0, 0.0]


def test_samples_of_a_bundled_game_keep_the_view_and_each_sides_cards():
    """Battlefield: Space deals each player's deck from the file: a sample keeps every card on
    the side it starts on, and the view of the player it is drawn for."""
    game = load_game(str(ROOT / "games" / "battlefield_space.cards"))
    sides = starting_sides(game)
    sampler = Determinizer(game)
    rng = random.Random(5)
    for seed in (1, 2):
        eng = at_decision(game, seed, [0, 1, 2, 0, 1])
        player = eng.pending.player
        for _ in range(3):
            sample = Engine.restore(game, sampler.sample(eng, player, rng), log=False)
            assert sample.view(player) == eng.view(player)
            for key, i, was in hidden_to(eng, player):
                now = sample.state.zones[key][i]
                assert sides[now] == sides[was]


def test_without_a_value_the_standing_is_the_games_declared_score(tmp_path):
    path = tmp_path / "scored.cards"
    path.write_text(GAME_HEAD + "player has:\n    points: number = 3\nscore for p as p's points * 2\n")
    game = load_game(str(path))
    standing = Standing(game)
    assert standing.source == "score"
    assert standing.value(Engine(game, 2, 1, log=False), 1) == 6.0


def test_a_card_the_player_looked_at_stays_as_it_is_in_every_sample():
    """`p looks at ...` shows p hidden cards (Engine.view): a sample keeps them, and the view."""
    game = load_game(str(ROOT / "tests" / "games" / "private_look.cards"))
    sampler = Determinizer(game)
    rng = random.Random(2)
    looked = 0
    for seed in range(6):
        eng = Engine(game, 2, seed, log=False)
        eng.decide(0)                       # seat 1 looks at the top of its deck
        player = 0
        known = [c for c, fields in enumerate(eng.state.cards) if player in fields.get("$seen_by", ())]
        looked += bool(known)
        for _ in range(4):
            sample = Engine.restore(game, sampler.sample(eng, player, rng), log=False)
            assert sample.view(player) == eng.view(player)
            assert all(sample.state.card_zone[c] == eng.state.card_zone[c] for c in known)
    assert looked
