"""The Dawn of Empire data pack: schema and cross-table checks, the facts of the rulebook and the
example of play (DATA-NOTES), route tables against an independent shortest-path solver, and the
``simlab data`` commands, ``--data`` overrides and provenance counts for ``dawn-of-empire``."""

import json
import textwrap

import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

from simlab.cli import main
from simlab.datapack import apply_override, load_pack
from simlab.errors import DataPackError
from simlab.games import get_game
from simlab.games.doe import campaign_layout as lay
from simlab.games.doe import rules

GAME = get_game("dawn-of-empire")


@pytest.fixture(scope="module")
def pack():
    return load_pack(rules.DATA_DIR, rules.SCHEMA)


@pytest.fixture(scope="module")
def data():
    return GAME.load_scenario("standard").payload


def cost(data, a, b, k=lay.KMAX):
    return int(data.cost[k, data.node(a), data.node(b)])


# ---------------------------------------------------------------- the rulebook's numbers
def test_seventeen_areas_with_the_rulebooks_mp_costs(data, pack):
    assert data.n_areas == 17                                                  # 3.5.7, 7.2.1 A
    mp = {k: pack.tables["areas"][k]["mp"].value for k in data.area_keys}
    assert sorted(k for k, v in mp.items() if v == 3) == ["middle-atlantic", "north-atlantic", "south-atlantic"]
    assert sorted(k for k, v in mp.items() if v == 2) == ["florida-strait", "puerto-rico-passage", "windward-passage",
                                                          "yucatan-strait"]
    assert all(pack.tables["areas"][k]["mp"].provenance.startswith(("rulebook:7.2.1", "provisional"))
               for k in data.area_keys)


def test_ports(data, pack):
    sides = {k: pack.tables["ports"][k]["side"].value for k in data.port_keys}
    assert sorted(k for k, v in sides.items() if v == "neutral") == ["caracas", "cartagena", "curacao", "kingston",
                                                                     "martinique"]   # 7.2.3 A
    assert sorted(k for k, v in sides.items() if v == "us") == ["hampton-roads", "key-west", "mobile"]
    for p, areas in (("cadiz", ["north-atlantic", "middle-atlantic"]),
                     ("canary-islands", ["middle-atlantic", "south-atlantic"])):                   # 7.2.2 B
        assert pack.tables["ports"][p]["areas"].value == areas
    hr = {f: pack.tables["ports"]["hampton-roads"][f].value for f in ("defense", "mine", "repair")}
    assert hr == {"defense": 3, "mine": 0, "repair": 4}                                            # 18.1.6, 18.1.8
    assert pack.tables["ports"]["key-west"]["repair"].value == pack.tables["ports"]["san-juan"]["repair"].value == 1
    assert pack.tables["ports"]["caracas"]["repair_germans"].value == 1                              # 14.12 B


def test_the_examples_facts(data, pack):
    t = pack.tables
    # area VPs (US/Spain) given by 18.1.7 and 18.2.7
    vp = {k: (t["areas"][k]["vp_us"].value, t["areas"][k]["vp_spain"].value) for k in data.area_keys}
    assert vp["gulf-of-mexico"][0] == 1 and vp["east-coast"] == (0, 4) and vp["bahamas"][0] == 1
    assert vp["puerto-rico-passage"][0] == 1 and vp["south-atlantic"][1] == 1
    # Search Matrix cells (initiative column x other row)
    m = data.matrix
    o = {n: i for i, n in enumerate(lay.ORDER_NAMES[:7])}
    assert m[o["raid"], o["transit"]] == 2 and m[o["patrol"], o["transit"]] == 3
    assert m[o["transit"], o["patrol"]] == 3 and m[o["coal"], o["sortie"]] == 2
    # leaders
    stars = {k: t["leaders"][k]["stars"].value for k in t["leaders"]}
    assert stars["Camara"] == 3 and stars["Cervera"] == 2 and stars["Schley"] == 2
    assert stars["Sampson"] == 3 and stars["Watson"] == 2
    # unit values
    u = t["units"]
    assert (u["Teresa"]["attack"].value, u["Teresa"]["defense"].value, u["Teresa"]["type"].value) == (3, 3, "CA")
    assert u["Oquendo"]["attack"].value == 2 and u["Oquendo"]["defense"].value == 4
    assert u["Vizcaya"]["attack"].value == 3 and u["Galicia"]["attack"].value == 1
    assert u["Castilla"]["attack"].value == 2 and u["Cristina"]["attack"].value == 1
    assert u["Furor"]["movement"].value == u["Pluton"]["movement"].value == 3
    assert u["Brooklyn"]["defense"].value == 5 and u["Texas"]["attack"].value == 3
    assert u["Massachusetts"]["attack"].value == 6
    for n in ("New Orleans", "Columbia", "Minneapolis", "Montgomery"):
        assert u[n]["attack"].value == 1
    # set-up (13.0 / 18.1)
    start = {k: u[k]["start"].value for k in u}
    assert {start[k] for k in ("Indiana", "Iowa", "New York", "Terror", "Annapolis")} == {"KW"}
    assert {start[k] for k in ("Massachusetts", "Texas", "Miantonomoh")} == {"HR"}
    assert start["San Francisco"] == start["Chicago"] == "EC"
    assert {start[k] for k in ("Teresa", "Vizcaya", "Oquendo", "Colon", "Pelayo")} == {"CI"}
    assert start["Galicia"] == "CE" and start["Mercedes"] == "SA" and start["Isabel II"] == "SJ"
    assert u["San Francisco"]["prior_order"].value == "patrol"                                      # 13.0 G
    # no reinforcements on turn 2 (18.2.1)
    assert all((u[k].get("entry_turn") is None) or u[k]["entry_turn"].value != 2 for k in u)


def test_the_examples_moves_fit_the_map_and_the_movement_values(data, pack):
    """D3 and 18.1.4 A: every move of the example is possible, and no faster than the units allow."""
    mov = {k: pack.tables["units"][k]["movement"].value for k in pack.tables["units"]}
    assert cost(data, "cadiz", "east-coast") == 4 and mov["Furor"] < 4               # 18.1.4 A
    moves = [  # (units, from, to, patrol areas bound or None)
        (["Castilla", "Patriota", "Rapido", "Cristina", "Buenos Aires"], "cadiz", "east-coast", None),
        (["Lepanto", "Alfonso XIII", "Asturias", "Carlos V"], "cadiz", "canary-islands", None),
        (["Ensenada", "Infanta Isabel"], "havana", "north-yucatan-basin", None),
        (["Annapolis", "Vicksburg", "Newport"], "key-west", "bahamas", None),
        (["Indiana", "Iowa", "Wilmington", "Helena", "Nashville", "Detroit"], "key-west", "gulf-of-mexico", 3),
        (["Teresa", "Vizcaya", "Oquendo"], "canary-islands", "puerto-rico-passage", 3),
        (["Galicia"], "cienfuegos", "puerto-rico-passage", None),
        (["Mercedes"], "santiago", "nares-abyssal", None),
        (["Massachusetts", "Brooklyn", "Texas", "New Orleans", "Columbia", "Minneapolis", "Montgomery"], "bahamas",
         "puerto-rico-passage", None),
        (["New York", "Cincinnati", "Machias", "Castine", "Marblehead"], "key-west", "nares-abyssal", 3),
        (["Terror", "Amphitrite", "Puritan"], "key-west", "gulf-of-mexico", None),
        (["Castilla", "Patriota", "Rapido", "Cristina", "Buenos Aires"], "east-coast", "cadiz", None),
    ]
    for units, a, b, k in moves:
        need = cost(data, a, b, k if k else lay.KMAX)
        assert min(mov[x] for x in units) >= need, f"{units[0]}: {a} -> {b} needs {need} MP"
    # 18.2.6 J: the nearest friendly ports from the Puerto Rico Passage are San Juan and Key West
    spanish = [p for p in data.port_keys if pack.tables["ports"][p]["side"].value == "spain"]
    us = [p for p in data.port_keys if pack.tables["ports"][p]["side"].value == "us"]
    prp = "puerto-rico-passage"
    assert min(spanish, key=lambda p: cost(data, prp, p)) == "san-juan"
    assert sorted(cost(data, prp, p) for p in us)[0] < sorted(cost(data, prp, p) for p in us)[1]
    assert min(us, key=lambda p: cost(data, prp, p)) == "key-west"
    # 18.2.6 K: Oquendo is not faster than every US unit left after round 1
    assert mov["Oquendo"] <= max(mov[x] for x in ("Texas", "New Orleans", "Columbia", "Minneapolis", "Montgomery"))


def test_every_provisional_value_has_a_note(pack):
    for r in pack.records():
        if r["provenance"] == "provisional":
            assert r["note"].strip(), f"{r['table']}.{r['key']}.{r['field']}"
    c = pack.counts()
    assert c["rulebook"] > 80 and c["example"] > 150 and c["provisional"] > 0


# ---------------------------------------------------------------- routes vs an independent solver
def test_route_costs_match_dijkstra(data):
    n = data.nodes.shape[0]
    na = data.n_areas
    mp = data.nodes[:, lay.NS_MP]
    for s in range(n):
        w = np.zeros((n, n))
        for i in range(n):
            if i >= na and i != s:
                continue          # a port ends a move: only the start may be left from a port
            for j in range(n):
                if data.adj[i, j]:
                    w[i, j] = mp[j]
        d = dijkstra(w, directed=True, indices=s)
        for t in range(n):
            want = 0 if t == s else d[t]
            got = data.cost[lay.KMAX, s, t]
            assert (got >= lay.BIG and not np.isfinite(want)) or got == want, (s, t, got, want)


def test_area_limited_routes_by_enumeration(data):
    """cost[k] against brute force over every route entering at most k areas (k = 1, 2, 3)."""
    n = data.nodes.shape[0]
    na = data.n_areas
    mp = data.nodes[:, lay.NS_MP]
    for s in range(n):
        best = {k: {s: 0} for k in (1, 2, 3)}
        frontier = [(s, 0, 0)]     # node, cost, areas entered
        while frontier:
            node, c, k = frontier.pop()
            for j in range(n):
                if not data.adj[node, j] or (node >= na and node != s):
                    continue
                kk = k + (1 if j < na else 0)
                if kk > 3:
                    continue
                for kb in range(kk, 4):
                    if kb >= 1 and c + mp[j] < best[kb].get(j, 10**9):
                        best[kb][j] = c + mp[j]
                if j < na:
                    frontier.append((j, c + mp[j], kk))
        for k in (1, 2, 3):
            for t in range(n):
                got = data.cost[k, s, t]
                want = best[k].get(t)
                assert (want is None and got >= lay.BIG) or got == want, (k, s, t, got, want)


# ---------------------------------------------------------------- cross-table checks
def _override(tmp_path, body):
    p = tmp_path / "mine.toml"
    p.write_text('[pack]\ngame = "dawn-of-empire"\n' + textwrap.dedent(body))
    return p


@pytest.mark.parametrize("body, msg", [
    ('[areas.bahamas]\nadjacent = ["florida-strait", "atlantis"]\n', "unknown area 'atlantis'"),
    ('[areas.bahamas]\nadjacent = ["florida-strait", "nares-abyssal", "windward-passage", "east-coast"]\n',
     "areas.bahamas borders east-coast but areas.east-coast.adjacent does not list bahamas"),
    ('[ports.key-west]\nareas = ["the-moon"]\n', "unknown area 'the-moon'"),
    ('[units.Texas]\nstart = "ZZ"\n', "is not the code of an area or port"),
    ('[units.Oregon]\nentry_turn = 3\nstart = "EC"\n', "reinforcement but starts in an area"),
    ('[ports.mobile]\ncode = "KW"\n', "code KW is used by both"),
    ('[search_matrix.raid]\ntransit = "2-4"\n', "search_matrix.raid.transit"),
    ('[order_markers.us]\npatrol = -1\n', "order_markers.us.patrol"),
    ('[units.Nemo]\nside = "us"\ntype = "SS"\nattack = 1\ndefense = 1\nmovement = 4\nstart = "KW"\n', "units.Nemo.type"),
])
def test_bad_overrides_are_refused_with_one_line(tmp_path, pack, body, msg):
    with pytest.raises(DataPackError, match=msg) as e:
        apply_override(pack, _override(tmp_path, body), rules.SCHEMA)
    assert "\n" not in str(e.value)


def test_an_override_changes_the_game(tmp_path, pack):
    p = _override(tmp_path, '[ports.hampton-roads]\ndefense = 9\n[order_markers.spain]\nraid = 0\n')
    new, changes = apply_override(pack, p, rules.SCHEMA)
    assert {(c["table"], c["key"], c["field"], c["new"]) for c in changes} == {
        ("ports", "hampton-roads", "defense", 9), ("order_markers", "spain", "raid", 0)}
    assert new.hash != pack.hash
    sc = GAME.load_scenario("standard", new)
    hr = sc.payload.node("hampton-roads")
    assert sc.payload.nodes[hr, lay.NS_DEF] == 9 and sc.payload.markers[1, lay.RAID] == 0
    # with no Raid markers the raider policy cannot raid: no Spanish port VPs at all
    b = GAME.play_batch(sc, GAME.resolve_options({}), {"us": "hunter", "spain": "raider"},
                        np.arange(1, 201, dtype=np.uint64))
    assert b.games["vp_port_spain"].sum() == 0
    base = GAME.play_batch(GAME.load_scenario("standard"), GAME.resolve_options({}), {"us": "hunter", "spain": "raider"},
                           np.arange(1, 201, dtype=np.uint64))
    assert base.games["vp_port_spain"].sum() > 0


# ---------------------------------------------------------------- CLI and manifests
def test_data_show_json(capsys):
    assert main(["data", "show", "dawn-of-empire", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["game"] == "dawn-of-empire" and set(d["counts"]) >= {"rulebook", "example", "provisional"}
    tables = {r["table"] for r in d["records"]}
    assert tables >= {"areas", "ports", "search_matrix", "order_markers", "units", "leaders", "types", "rules"}
    r = next(r for r in d["records"] if (r["table"], r["key"], r["field"]) == ("ports", "hampton-roads", "mine"))
    assert r["value"] == 0 and r["provenance"] == "example:18.1.6"


def test_data_check_and_bad_file(tmp_path, capsys):
    ok = _override(tmp_path, '[units.Texas]\nattack = 4\n')
    assert main(["data", "check", str(ok)]) == 0
    assert "units.Texas.attack: 3 [example:18.2.6] -> 4" in " ".join(capsys.readouterr().out.split())
    assert main(["data", "check", str(ok), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["changes"] == [{"table": "units", "key": "Texas", "field": "attack", "old": 3, "new": 4,
                             "old_provenance": "example:18.2.6"}]
    bad = _override(tmp_path, '[areas.bahamas]\nadjacent = ["atlantis"]\n')
    assert main(["data", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "atlantis" in err


def test_sweep_manifest_counts_the_values_used(tmp_path, capsys):
    ov = _override(tmp_path, '[ports.hampton-roads]\ndefense = 5\n')
    out = tmp_path / "run"
    rc = main(["sweep", "--game", "dawn-of-empire", "--games", "20", "--workers", "1", "--no-progress",
               "--out", str(out), "--data", str(ov), "--json"])
    assert rc == 0
    man = json.loads((out / "manifest.json").read_text())
    d = man["data"]
    assert d["version"].endswith("+user") and d["counts"]["user"] == 1
    assert d["counts"]["provisional"] == len(d["provisional_used"]) > 0
    assert "ports.hampton-roads.defense" not in d["provisional_used"]
    assert "areas.sargasso-sea.name" in d["provisional_used"]
