"""tasks/engine"""
