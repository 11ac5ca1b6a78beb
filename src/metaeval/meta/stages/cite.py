"""The works the output declarations cite in more than one stage (captions and the tables or
figures of the papers they regenerate, by author and year)."""

SAKAI_A = "Sakai (2007a)"
SAKAI_B = "Sakai (2007b)"
SAKAI_14 = "Sakai (2014)"
URBANO_19 = "Urbano, Lima & Hanjalic (2019)"
