DROP TABLE served_scrambles;
