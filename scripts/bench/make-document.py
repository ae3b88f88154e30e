"""An export document (giftkeeper.export.v2) of N presents with ordinary text, for the
black-box benchmarks (scripts/bench-black-box.sh): a household's recipients, titles of a few
words, notes of about 130 characters (a few with accents), three in four with a price,
occasions, statuses of every kind. Deterministic: the same N gives the same document.

    python3 make-document.py N > document.json
"""
import json
import random
import sys

count = int(sys.argv[1])
rng = random.Random(12)
recipients = ["Mum", "Dad", "Grandma Rose", "Grandpa Joe", "Aunt Léa", "Uncle Tomás", "Sophie", "Max",
              "Emma", "Noah", "Mrs Patel", "Oliver", "Chloé", "Lucas", "Ada", "Ben"]
adjectives = ["Blue", "Wooden", "Small", "Hand-made", "Vintage", "Warm", "Red", "Leather", "Silver", "Green",
              "Illustrated", "Cosy", "Tiny", "Large", "Striped"]
things = ["scarf", "tea set", "puzzle of 1000 pieces", "cookbook", "notebook", "board game", "watering can",
          "headphones", "kite", "photo frame", "candle", "wallet", "bird feeder", "umbrella", "mug", "novel",
          "Lego set", "jigsaw", "plant pot", "fountain pen"]
fragments = ["seen at the Saturday market", "she mentioned it twice in October", "keep the receipt in the kitchen drawer",
             "wrap in the brown paper with the red ribbon", "ask Sophie about the size first", "the shop closes at six",
             "order before the 10th for delivery", "compare with the one online", "he already has the green one",
             "check the colour in daylight", "hide it in the loft", "goes with last year's present",
             "café on the corner sells them too", "maybe with a card from the children"]
occasions = ["Christmas 2026", "Birthday", "Anniversary", "Easter", "Graduation"]
statuses = ["idea", "idea", "bought", "wrapped", "given"]
stores = ["", "Market", "Bookshop on Main Street", "Online", "Garden centre"]


def notes():
    text = ""
    while len(text) < 118:
        piece = rng.choice(fragments)
        text = piece[0].upper() + piece[1:] if not text else text + "; " + piece
    return text[:140].rstrip() + "."


def stamp(day, minute):
    return "2026-%02d-%02dT%02d:%02d:00.000Z" % (1 + day % 11, 1 + day % 28, 8 + minute // 60 % 12, minute % 60)


presents = []
for number in range(1, count + 1):
    status = rng.choice(statuses)
    created = stamp(number % 300, number % 600)
    presents.append({
        "createdAt": created,
        "givenAt": stamp(number % 300 + 1, number % 600) if status == "given" else None,
        "id": "p%d" % number,
        "notes": notes(),
        "occasion": rng.choice(occasions),
        "price": None if number % 4 == 0 else "%d.%02d" % (rng.randrange(3, 180), rng.choice([0, 50, 99])),
        "recipient": rng.choice(recipients),
        "status": status,
        "store": rng.choice(stores),
        "title": "%s %s" % (rng.choice(adjectives), rng.choice(things)),
        "updatedAt": created,
        "url": "",
    })
document = {
    "account": {"currency": "EUR", "name": "Bench"},
    "budgets": [],
    "format": "giftkeeper.export.v2",
    "occasions": [{"date": None, "name": name, "yearly": False} for name in occasions],
    "presents": presents,
}
json.dump(document, sys.stdout, ensure_ascii=False, indent=2, sort_keys=True)
sys.stdout.write("\n")
