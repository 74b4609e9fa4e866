"""The table as spymaster: from the board's words, its key and what is revealed, a clue word and a
number (``giver.ClueGiver``, the seam a better model replaces the embedding one through). Its layer
sits between the cards' reading and the table, so the table's loop asks it and it asks nothing above."""
