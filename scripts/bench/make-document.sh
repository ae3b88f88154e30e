#!/usr/bin/env bash
# An export document (giftkeeper.export.v2) of N presents with ordinary text, for `make bench`
# (scripts/bench.sh) and scripts/bench-sync.sh: a household's sixteen recipients, titles of two
# or three words, notes of about 130 characters (a few with accents), three in four with a
# price, occasions, statuses of every kind. Deterministic: the same N gives the same document
# (a Park–Miller sequence, exact in awk's doubles).
#
#   scripts/bench/make-document.sh N > document.json
set -euo pipefail
awk -v count="${1:?usage: make-document.sh N}" '
function next_random(n) { seed = (seed * 16807) % 2147483647; return int(seed / 2147483647 * n) }
function pick(list, n) { return list[next_random(n) + 1] }
function notes(    text, piece) {
    text = ""
    while (length(text) < 118) {
        piece = pick(fragments, 14)
        text = text == "" ? toupper(substr(piece, 1, 1)) substr(piece, 2) : text "; " piece
    }
    return text "."
}
function stamp(day, minute) {
    return sprintf("2026-%02d-%02dT%02d:%02d:00.000Z", 1 + day % 11, 1 + day % 28, 8 + int(minute / 60) % 12, minute % 60)
}
BEGIN {
    seed = 12
    split("Mum|Dad|Grandma Rose|Grandpa Joe|Aunt Léa|Uncle Tomás|Sophie|Max|Emma|Noah|Mrs Patel|Oliver|Chloé|Lucas|Ada|Ben", recipients, "|")
    split("Blue|Wooden|Small|Hand-made|Vintage|Warm|Red|Leather|Silver|Green|Illustrated|Cosy|Tiny|Large|Striped", adjectives, "|")
    split("scarf|tea set|puzzle of 1000 pieces|cookbook|notebook|board game|watering can|headphones|kite|photo frame|candle|wallet|bird feeder|umbrella|mug|novel|Lego set|jigsaw|plant pot|fountain pen", things, "|")
    split("seen at the Saturday market|she mentioned it twice in October|keep the receipt in the kitchen drawer|wrap in the brown paper with the red ribbon|ask Sophie about the size first|the shop closes at six|order before the 10th for delivery|compare with the one online|he already has the green one|check the colour in daylight|hide it in the loft|goes with last year'"'"'s present|café on the corner sells them too|maybe with a card from the children", fragments, "|")
    split("Christmas 2026|Birthday|Anniversary|Easter|Graduation", occasions, "|")
    split("idea|idea|bought|wrapped|given", statuses, "|")
    split("|Market|Bookshop on Main Street|Online|Garden centre", stores, "|")
    printf "{\"account\": {\"currency\": \"EUR\", \"name\": \"Bench\"}, \"budgets\": [], \"format\": \"giftkeeper.export.v2\",\n"
    printf "\"occasions\": ["
    for (i = 1; i <= 5; i++) printf "%s{\"date\": null, \"name\": \"%s\", \"yearly\": false}", (i > 1 ? ", " : ""), occasions[i]
    printf "],\n\"presents\": [\n"
    for (number = 1; number <= count; number++) {
        status = pick(statuses, 5)
        created = stamp(number % 300, number % 600)
        given = status == "given" ? "\"" stamp(number % 300 + 1, number % 600) "\"" : "null"
        price = number % 4 == 0 ? "null" : sprintf("\"%d.%s\"", 3 + next_random(177), substr("00|50|99", 1 + 3 * next_random(3), 2))
        printf "{\"createdAt\": \"%s\", \"givenAt\": %s, \"id\": \"p%d\", \"notes\": \"%s\", \"occasion\": \"%s\", ", created, given, number, notes(), pick(occasions, 5)
        printf "\"price\": %s, \"recipient\": \"%s\", \"status\": \"%s\", \"store\": \"%s\", ", price, pick(recipients, 16), status, pick(stores, 5)
        printf "\"title\": \"%s %s\", \"updatedAt\": \"%s\", \"url\": \"\"}%s\n", pick(adjectives, 15), pick(things, 20), created, (number < count ? "," : "")
    }
    printf "]}\n"
}'
