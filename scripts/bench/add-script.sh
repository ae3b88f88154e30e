# Sourced by the black-box benchmarks: add_script N PASSWORD prints a shell script that sets
# up a journal and adds N presents, then quits.
#
# BENCH_TITLES chooses the titles:
#   same   (the default) "A present with a realistic title N" for twelve recipients: every
#          title shares its words with every other one, so each add compares the new title
#          with all of the recipient's presents and prints three gift-memory notes and a
#          count. This is the worst case for gift memory.
#   person titles like a person's, from the vocabulary of make-document.py ("Warm scarf",
#          "Wooden board game"): sixteen recipients, fifteen adjectives and twenty things,
#          picked by a fixed pseudo-random sequence, so a run is the same every time.
# Each add has a price and a note of about a hundred characters.
add_script() {
    local recipients=("Mum" "Dad" "Grandma Rose" "Grandpa Joe" "Aunt Léa" "Uncle Tomás" "Sophie" "Max"
        "Emma" "Noah" "Mrs Patel" "Oliver" "Chloé" "Lucas" "Ada" "Ben")
    local adjectives=("Blue" "Wooden" "Small" "Hand-made" "Vintage" "Warm" "Red" "Leather" "Silver" "Green"
        "Illustrated" "Cosy" "Tiny" "Large" "Striped")
    local things=("scarf" "tea set" "puzzle of 1000 pieces" "cookbook" "notebook" "board game" "watering can"
        "headphones" "kite" "photo frame" "candle" "wallet" "bird feeder" "umbrella" "mug" "novel" "Lego set"
        "jigsaw" "plant pot" "fountain pen")
    local note="Wrapped in blue paper, bought at the market on a Saturday morning; keep the receipt in the kitchen drawer."
    printf 'setup Bench --kdf interactive\n%s\n%s\n' "$2" "$2"
    local seed=12
    next() { seed=$(((seed * 1103515245 + 12345) % 2147483648)); }  # a fixed sequence: the same run every time
    for ((i = 1; i <= $1; i++)); do
        if [ "${BENCH_TITLES:-same}" = person ]; then
            next; local recipient=${recipients[seed / 65536 % 16]}
            next; local adjective=${adjectives[seed / 65536 % 15]}
            next; local thing=${things[seed / 65536 % 20]}
            printf 'add "%s" "%s %s" --price %d.50 --notes "%s"\n' "$recipient" "$adjective" "$thing" $((i % 90)) "$note"
        else
            printf 'add "Recipient %d" "A present with a realistic title %d" --price %d.50 --notes "%s"\n' \
                $((i % 12)) "$i" $((i % 90)) "$note"
        fi
    done
    printf 'quit\n'
}
