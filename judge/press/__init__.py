"""Press with machine players: the stored press and its rules (`machine_press`), DAIDE
press in plain English and back (`english`)."""
