"""The works the output declarations cite in more than one stage (captions and the tables or
figures of the papers they regenerate, by author and year)."""

SAKAI_A = "Sakai (2007a)"
SAKAI_B = "Sakai (2007b)"
SAKAI_14 = "Sakai (2014)"
#: the methods, as captions name them ("the paired bootstrap test of Sakai (2006; 2007b)")
PAIRED_BOOTSTRAP = "the paired bootstrap test of Sakai (2006; 2007b)"
UNPAIRED_BOOTSTRAP = "the unpaired bootstrap test of Sakai (2007b)"
SWAP_METHOD = "the swap method of Voorhees & Buckley (2002), on bootstrap samples as Sakai (2007b)"
STABILITY_METHOD = "the stability method of Buckley & Voorhees (2000), on bootstrap samples as Sakai (2007b)"
URBANO_19 = "Urbano, Lima & Hanjalic (2019)"
