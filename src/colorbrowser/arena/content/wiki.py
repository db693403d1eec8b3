"""An encyclopedia of a fictional country: towns, rivers, mountains, regions and people
that link to each other, each with an infobox.

Facts are decided first (which river runs through which town, who was born where),
then every article is written from those facts, so links and infoboxes agree: a
town's article names its river, and the river's article lists that town.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

COUNTRY = "Valdoria"
PREFIX = ("Ash", "Brack", "Caer", "Dun", "Elm", "Fern", "Glen", "Hal", "Ivy", "Kel", "Lark",
          "Mar", "Nor", "Oak", "Pen", "Ros", "Stan", "Thorn", "Wil", "Bram", "Cold", "Dray",
          "East", "Fal", "Gray", "Hart", "Kings", "Lang", "Mill", "New", "Old", "Red", "Salt",
          "Stone", "Tarn", "Whit", "Wolf", "Yar", "Alder", "Birch")
SUFFIX = ("ford", "bury", "wick", "ton", "ham", "mouth", "stead", "field", "dale", "moor",
          "bridge", "haven", "well", "by", "thorpe", "cliff", "combe", "hurst", "ley", "minster",
          "port", "gate", "holm", "wood", "burn")
RIVER_ROOTS = ("Aven", "Brenna", "Calder", "Dove", "Esk", "Frome", "Garra", "Hollin", "Isel",
               "Kennet", "Lune", "Marra", "Nene", "Ouse", "Perrin", "Quell", "Rother", "Seren",
               "Tamar", "Usk", "Vell", "Wensum", "Yeo", "Alne", "Bure", "Cam", "Derwen", "Ely",
               "Fal", "Glaze", "Hodder", "Irwell", "Kyle", "Leven", "Mole", "Nidd", "Otter",
               "Parrett", "Ribble", "Swale")
PEAK_WORDS = ("Crag", "Pike", "Fell", "Beacon", "Tor", "Peak", "Knott", "Ridge")
PEAK_ROOTS = ("Raven", "Eagle", "Grey", "Storm", "High", "Black", "Cloud", "Iron", "White",
              "Hawk", "Wind", "Frost", "Heather", "Lantern", "Giant's", "Shepherd's")
REGIONS = (("Northmarch", "the cold uplands of the north"),
           ("Westvale", "the green river valleys of the west"),
           ("Eastreach", "the flat farmland of the east"),
           ("Southwold", "the wooded hills of the south"),
           ("Midland Downs", "the chalk downs at the centre of the country"),
           ("Coastmere", "the long coast and its fishing harbours"),
           ("Highcairn", "the mountains of the interior"),
           ("Fenland", "the drained marshes of the south-east"))
INDUSTRIES = ("wool weaving", "fishing", "slate quarrying", "brewing", "clockmaking",
              "shipbuilding", "dairy farming", "paper milling", "glassmaking", "tourism",
              "salt panning", "orchards and cider", "boat building", "lace making", "printing")
OCCUPATIONS = (("painter", "landscapes of"), ("poet", "poems about"), ("engineer", "bridges in"),
               ("botanist", "a survey of the flora of"), ("composer", "a symphony named after"),
               ("mountaineer", "the first ascent of"), ("novelist", "a novel set in"),
               ("architect", "the town hall of"), ("historian", "a history of"),
               ("physician", "a hospital in"), ("cartographer", "the first map of"))
FIRST = ("Anselm", "Beatrix", "Corin", "Delphine", "Edric", "Fenna", "Gideon", "Hester",
         "Isolde", "Jasper", "Katrin", "Leopold", "Marisol", "Niall", "Odile", "Perrin",
         "Rosalind", "Silas", "Tamsin", "Ulric", "Vesna", "Wendel", "Ysolde", "Alaric",
         "Brigid", "Casimir", "Dorothea", "Emeric", "Fiora", "Gregor")
LAST = ("Ashdown", "Blackwood", "Carrow", "Dunmore", "Everly", "Fairholm", "Greaves",
        "Holloway", "Ingram", "Jessop", "Kettering", "Lowther", "Marlowe", "Northcott",
        "Orrin", "Pendry", "Quayle", "Redmayne", "Stroud", "Thackeray", "Underhill", "Vance",
        "Whitlock", "Yardley", "Ambrose", "Bellamy", "Crane", "Dorset", "Elphick", "Fenwick")


@dataclass
class Town:
    name: str
    region: str
    population: int
    elevation: int
    founded: int
    industry: str
    river: str | None = None
    neighbours: list[str] = field(default_factory=list)
    people: list[str] = field(default_factory=list)


@dataclass
class River:
    name: str
    length: int
    source: str  # a mountain
    mouth: str
    towns: list[str] = field(default_factory=list)
    tributaries: list[str] = field(default_factory=list)


@dataclass
class Mountain:
    name: str
    elevation: int
    region: str
    climber: str | None = None
    rivers: list[str] = field(default_factory=list)


@dataclass
class Person:
    name: str
    born: int
    died: int | None
    birthplace: str
    occupation: str
    work: str
    subject: str  # the town, river or mountain their work is about


@dataclass
class World:
    towns: dict[str, Town]
    rivers: dict[str, River]
    mountains: dict[str, Mountain]
    people: dict[str, Person]


def _unique(rng: random.Random, make, count: int, taken: set[str]) -> list[str]:
    out = []
    while len(out) < count:
        name = make()
        if name not in taken:
            taken.add(name)
            out.append(name)
    return out


def world(seed: int, towns: int = 900, rivers: int = 120, mountains: int = 90,
          people: int = 900) -> World:
    rng = random.Random(f"wiki:{seed}")
    taken: set[str] = set()

    def town_name() -> str:
        base = rng.choice(PREFIX) + rng.choice(SUFFIX)
        return rng.choices((base, f"Upper {base}", f"Little {base}"), (8, 1, 1))[0]

    town_names = _unique(rng, town_name, towns, taken)
    river_names = _unique(rng, lambda: f"River {rng.choice(RIVER_ROOTS)}"
                          + rng.choice(("", "", "", " Water", "water")), rivers, taken)
    peak_names = _unique(rng, lambda: f"{rng.choice(PEAK_ROOTS)} {rng.choice(PEAK_WORDS)}",
                         mountains, taken)
    person_names = _unique(rng, lambda: f"{rng.choice(FIRST)} {rng.choice(LAST)}", people, taken)
    region_of = {t: rng.choice(REGIONS)[0] for t in town_names}
    w = World({}, {}, {}, {})
    for name in town_names:
        w.towns[name] = Town(name, region_of[name], int(rng.lognormvariate(8.3, 1.1)),
                             rng.randint(2, 900), rng.randint(880, 1890),
                             rng.choice(INDUSTRIES))
    for name in peak_names:
        w.mountains[name] = Mountain(name, rng.randint(620, 2890),
                                     rng.choice(("Highcairn", "Northmarch", "Southwold")))
    for name in river_names:
        source = rng.choice(peak_names)
        w.rivers[name] = River(name, rng.randint(12, 340), source, "")
        w.mountains[source].rivers.append(name)
    main_rivers = river_names[:25]
    for name in river_names:
        river = w.rivers[name]
        if name in main_rivers:
            river.mouth = rng.choice(("the Northern Sea", "the Gulf of Coastmere",
                                      "the Western Sound"))
        else:
            river.mouth = rng.choice(main_rivers)
            w.rivers[river.mouth].tributaries.append(name)
    for name in town_names:
        if rng.random() < 0.7:
            river = rng.choice(river_names)
            w.towns[name].river = river
            w.rivers[river].towns.append(name)
    by_region: dict[str, list[str]] = {}
    for name in town_names:
        by_region.setdefault(region_of[name], []).append(name)
    for names in by_region.values():
        for name in names:
            w.towns[name].neighbours = sorted(rng.sample([n for n in names if n != name],
                                                         k=min(3, len(names) - 1)))
    for name in person_names:
        born = rng.randint(1620, 1985)
        died = born + rng.randint(38, 94) if born < 1950 or rng.random() < 0.2 else None
        place = rng.choice(town_names)
        job, work = rng.choice(OCCUPATIONS)
        if job == "mountaineer":
            subject = rng.choice(peak_names)
            if w.mountains[subject].climber is None:
                w.mountains[subject].climber = name
        elif job == "poet" and rng.random() < 0.5:
            subject = rng.choice(river_names)
        else:
            subject = rng.choice(town_names)
        w.people[name] = Person(name, born, died if died and died < 2024 else None, place, job,
                                work, subject)
        w.towns[place].people.append(name)
    return w
