DROP TABLE puzzle_counts;
DROP TABLE puzzle_states;
